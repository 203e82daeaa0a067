import { randomUUID } from "node:crypto";
import { type ConnectionService, NoConnectionError } from "../connection/service.ts";
import { type Cluster, singleBackend } from "../db/cluster.ts";
import type { Transaction } from "../db/database.ts";
import { databaseOutage } from "../db/outage.ts";
import type { DeployEventBus } from "../events/bus.ts";
import {
  type HistoryEntry,
  type HistoryService,
  INTERRUPTED_MESSAGE,
  type RunSettle,
} from "../history/service.ts";
import { type RunVisibility, requireVisible } from "../identity/apikeys/scope.ts";
import type { Caller } from "../identity/caller.ts";
import type { Clock } from "../platform/clock.ts";
import { type Deadline, deadlineIn } from "../platform/deadline.ts";
import type { Logger } from "../platform/logger.ts";
import type { StackLanes } from "../platform/stack-lanes.ts";
import {
  failedUpdateReason,
  type KomodoClient,
  type KomodoUpdate,
  UpstreamError,
} from "../upstream/komodo-client.ts";
import type {
  DeployAction,
  DeployFailureKind,
  DeployRun,
  DeployRunStatus,
  DeployStep,
  FinishedRun,
} from "./run.ts";
import { IdempotencyKeyReused, type RunStore, requestHash, UnknownRunError } from "./runs.ts";
import type { SettleWatch } from "./settle.ts";
import { appendStages, type RunLog, stagesOf } from "./stage-logs.ts";
import { type ExecuteStep, lastStepOf, plans, StepFailed, stepOf } from "./steps.ts";
import {
  changesBetween,
  commitBetween,
  readSnapshot,
  type ServiceChange,
  type StackSnapshot,
} from "./versions.ts";

export type { DeployAction, DeployFailureKind } from "./run.ts";

async function isUnknownStack(client: KomodoClient, stack: string): Promise<boolean> {
  try {
    return (await client.findStack(stack)) === undefined;
  } catch {
    return false;
  }
}

/** A deploy that did not succeed; the API's one error mapping (http-errors.ts) answers it. */
export class DeployFailure extends Error {
  readonly kind: DeployFailureKind;
  readonly target: { stack: string; action: DeployAction };
  constructor(kind: DeployFailureKind, message: string, target: { stack: string; action: DeployAction }) {
    super(message);
    this.name = "DeployFailure";
    this.kind = kind;
    this.target = target;
  }
}

export const successMessage = (action: DeployAction, stack: string) =>
  `Acción '${action}' completada para '${stack}'`;

/** The reason in-flight deploys are abandoned with when the backend stops. */
class Shutdown extends Error {}

const skipped = (reason: string): RunSettle => ({ state: "skipped", reason, until: null });

/** What a run's record says when another backend learned its outcome from Komodo. */
const RECOVERED = "recovered: the backend that ran it stopped, and Komodo's own outcome is recorded";

/** What the synchronous API answers for a deploy that succeeded. */
export interface DeployAnswer {
  success: true;
  message: string;
  stack: string;
  action: DeployAction;
}

export interface DeployRequest {
  stack: string;
  action: DeployAction;
  caller: Caller;
  /** The caller's Idempotency-Key: a repeat within its lifetime answers the same run. */
  idempotencyKey?: string;
  /** How long to watch the services after a successful redeploy; the service's default when absent. */
  settleSeconds?: number;
}

/** A run once recorded: its start, and its outcome when it ends. */
interface OpenRun {
  run: DeployRun;
  outcome: () => Promise<DeployAnswer>;
  /** An earlier request with the same idempotency key started it. */
  replayed?: true;
}

/**
 * The outcomes of recent keyed runs, so that a repeat after the run ended answers exactly as the
 * run did (a 504 stays a 504). Older ones are answered from the history row.
 */
const REMEMBERED_KEYED_RUNS = 1000;
/** How often the history row of a run held by another instance is read while it runs. */
const RECORDED_OUTCOME_POLL_MS = 1000;

/** What a deploy learned on its way, for its record: what ran before and after, and its stages. */
interface Findings {
  before: StackSnapshot | null;
  after: StackSnapshot | null;
  log: RunLog;
  /** How many of the log's stages were announced (`log` events) so far. */
  announced: number;
}

const noFindings = (): Findings => ({
  before: null,
  after: null,
  log: { stages: [], truncated: false },
  announced: 0,
});

export function createDeployService({
  connection,
  history,
  runs,
  events,
  clock,
  deployTimeoutMs,
  settleSeconds: defaultSettleSeconds = 0,
  settleWatch,
  lanes,
  logger,
  cluster = singleBackend,
}: {
  /** The other backends on the database: whose running deploys are theirs, and who is gone. */
  cluster?: Cluster;
  connection: ConnectionService;
  history: HistoryService;
  /** The runs' steps and idempotency keys. */
  runs: RunStore;
  events: DeployEventBus;
  clock: Clock;
  deployTimeoutMs: number;
  /** How long a successful redeploy's services are watched when the request does not say (SETTLE_SECONDS). */
  settleSeconds?: number;
  /** Watches the services after a redeploy; without it, no deploy is watched. */
  settleWatch?: SettleWatch;
  /** Deploys of one stack wait for each other and for the stack's deletion. */
  lanes: StackLanes;
  logger: Logger;
}) {
  let stopping = false;
  const shutdown = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  const interrupted = (action: DeployAction, stack: string) =>
    new DeployFailure(
      "unavailable",
      `Stackgate stopped before Komodo finished '${action}' of '${stack}'; check the stack in Komodo`,
      { stack, action },
    );

  const keyedRuns = new Map<string, OpenRun>();
  /** The stages of the runs this backend is following, for `logs` while they run. */
  const liveLogs = new Map<string, RunLog>();

  /** Komodo's answer, or its absence, as the run's failure. */
  function failureOf(error: unknown, run: DeployRun, deadline: Deadline): DeployFailure | undefined {
    const target = { stack: run.stack, action: run.action };
    if (error instanceof DeployFailure) return error;
    if (error instanceof StepFailed) return new DeployFailure("komodo-failed", error.message, target);
    if (error instanceof Shutdown) return interrupted(run.action, run.stack);
    if (error instanceof NoConnectionError) return new DeployFailure("unavailable", error.message, target);
    // The client's per-call limit and the deploy's deadline both end as "timeout"; only the latter is a 504.
    if (error instanceof UpstreamError && error.kind === "timeout" && deadline.passed()) {
      return new DeployFailure(
        "timed-out",
        `Komodo did not finish '${run.action}' of '${run.stack}' within ${Math.round(deployTimeoutMs / 1000)} s`,
        target,
      );
    }
    if (error instanceof UpstreamError) return new DeployFailure("komodo-failed", error.message, target);
    return undefined;
  }

  /**
   * Adds a step's stages to the run's log. Those of a step before the last are kept, then
   * announced (`log`), so that every backend can read what it announces; the last step's land with
   * the run's outcome, and are announced then (`conclude`).
   */
  async function logStages(run: DeployRun, findings: Findings, type: ExecuteStep, update: KomodoUpdate) {
    appendStages(findings.log, stagesOf(update));
    if (type === lastStepOf[run.action]) return;
    await history.saveLog(run.id, findings.log).catch((error: unknown) => {
      logger.warn({ err: error, stack: run.stack }, "a deploy's stages could not be kept yet");
    });
    announceStages(run, findings);
  }

  function announceStages(run: DeployRun, findings: Findings) {
    const fresh = findings.log.stages.slice(findings.announced);
    findings.announced = findings.log.stages.length;
    if (fresh.length > 0) events.log(run.id, run.stack, fresh);
  }

  /** What runs now; for a pull, without the commit: a pull deploys none, and its run records none. */
  const snapshotFor = (client: KomodoClient, { action, stack }: DeployRun) =>
    readSnapshot(client, stack, logger, { withCommit: action !== "pull" });

  /**
   * What ran before, Komodo's steps, and what runs after. A pull restarts nothing: what runs is read
   * once, while it pulls, and is both its before and its after.
   */
  async function attempt(run: DeployRun, deadline: Deadline, findings: Findings) {
    const { action, stack } = run;
    if (shutdown.signal.aborted) throw interrupted(action, stack);
    const updates: string[] = [];
    const client = connection.requireClient();
    const reading = snapshotFor(client, run);
    if (action !== "pull") findings.before = await reading;
    try {
      await plans[action](client, {
        stack,
        deadline,
        signal: shutdown.signal,
        onStarted: async (type, update) => {
          const step = stepOf[type];
          if (update._id?.$oid) updates.push(update._id.$oid);
          // Kept before the Update is followed: should this backend die, another reads its outcome there.
          await runs.setStep(run.id, step, [...updates]).catch((error: unknown) => {
            logger.warn({ err: error, stack, action, step }, "the deploy's step could not be recorded");
          });
          events.started({ ...run, step });
        },
        onCompleted: (type, update) => logStages(run, findings, type, update),
      });
    } catch (error) {
      // Asked only once Komodo refused: a deploy that goes through pays no extra call.
      if (error instanceof UpstreamError && error.kind !== "timeout" && (await isUnknownStack(client, stack)))
        throw new DeployFailure(
          "unknown-stack",
          `Komodo has no stack named '${stack}': nothing was deployed. Check the name on the Stacks page (or with 'stackgate stacks')`,
          { stack, action },
        );
      throw error;
    } finally {
      if (action === "pull") findings.before = await reading;
      else if (!shutdown.signal.aborted) findings.after = await snapshotFor(client, run);
    }
  }

  /** The window a run gets: watched after a successful redeploy, unless its request turned it off. */
  function settleOf(run: DeployRun, failed: boolean, seconds: number, finishedAt: Date): RunSettle {
    if (run.action === "pull") return skipped("a pull restarts nothing");
    if (failed) return skipped("the deploy failed");
    if (seconds === 0 || !settleWatch) return skipped("not watched: settleSeconds is 0");
    return { state: "watching", reason: null, until: new Date(finishedAt.getTime() + seconds * 1000) };
  }

  /**
   * Watches a finished run's services until its window ends, then records and announces how it
   * ended. `before` is what ran before the deploy, as read then (its containers tell the deploy's
   * apart) or, for a window resumed after a restart, as its changes recorded it (digests only).
   */
  function watchSettle(
    run: FinishedRun,
    before: StackSnapshot | null,
    after: StackSnapshot | null,
    { resumed = false } = {},
  ) {
    if (!settleWatch || run.settle?.state !== "watching" || !run.settle.until) return;
    let seen = after;
    settleWatch.watch({
      stack: run.stack,
      before: resumed ? null : (before?.services ?? null),
      startedAt: run.startedAt.getTime(),
      until: run.settle.until.getTime(),
      onRead: (services) => {
        const fresher = new Map(services.map((service) => [service.service, service]));
        seen = {
          commit: seen?.commit ?? null,
          services: (seen?.services ?? services).map((service) => fresher.get(service.service) ?? service),
        };
      },
      onEnd: (verdict) => {
        const settle: RunSettle = {
          ...verdict,
          until: verdict.state === "skipped" ? null : run.settle!.until,
        };
        // What the services ran once watched: Komodo's monitor may have lagged the first read after the deploy.
        const changes = before || seen ? changesBetween(before, seen) : undefined;
        const settled: FinishedRun = { ...run, settle, changes: changes ?? run.changes };
        history
          .settled(run.id, run.stack, settle, changes)
          .catch((error: unknown) =>
            logger.warn({ err: error, stack: run.stack }, "how a deploy settled was not recorded"),
          )
          .finally(() => events.settled(settled));
        if (verdict.state === "unstable")
          logger.warn({ stack: run.stack, reason: verdict.reason }, "deploy unstable");
      },
    });
  }

  return {
    /**
     * Runs the action to its real outcome; the history row is written before this returns. With an
     * idempotency key already used for the same request, the earlier run's outcome instead.
     */
    async run(request: DeployRequest): Promise<DeployAnswer> {
      return (await open(request)).outcome();
    },

    /**
     * Records the run and starts it without waiting for its end (`Prefer: respond-async`); it goes
     * on exactly as a synchronous one (history, events, alert, metrics, shutdown). With an
     * idempotency key already used for the same request, the earlier run instead (`replayed`).
     */
    async start(request: DeployRequest): Promise<{ run: DeployRun; replayed: boolean }> {
      const { run, replayed = false } = await open(request);
      return { run, replayed };
    },

    /** A run by id, if `visible` admits it; else UnknownRunError. */
    async find(id: string, visible: RunVisibility): Promise<DeployRunStatus> {
      const entry = await runs.find(id);
      if (!entry || !visible.admits(entry)) throw new UnknownRunError(id);
      if (!entry.running) {
        const changes = (await history.changesOf([id])).get(id) ?? [];
        return { ...runOf(entry, changes), status: "finished" };
      }
      const live = events.running().find((run) => run.id === id);
      const step = live?.step ?? (entry.step as DeployStep | null) ?? undefined;
      return { ...startedRunOf(entry), ...(step ? { step } : {}), status: "running" };
    },

    /** A run's stages as kept (so far, while it runs), if `visible` admits its stack; else UnknownRunError. */
    async logs(id: string, visible: RunVisibility): Promise<RunLog> {
      const entry = await runs.find(id);
      if (!entry || !visible.admits(entry)) throw new UnknownRunError(id);
      return liveLogs.get(id) ?? (await history.logOf(id)) ?? { stages: [], truncated: false };
    },

    /**
     * Takes over the actions left running by a backend that is gone (this one's previous run, or
     * another backend on the database, crashed or killed) and records how they really ended: from
     * Komodo's Update of their last step when it has it (recovered), as interrupted otherwise. Each
     * is published like any finished deploy (so an interrupted one is alerted too). Called at
     * start, then by `watchInterrupted`. Resolves once they are taken over; each is followed in
     * the background (an Update Komodo still runs may take long), as a deploy of this backend is.
     */
    async recoverInterrupted() {
      for (const entry of await history.adoptInterrupted(cluster.isGone)) {
        const ending = recover(entry);
        inFlight.add(ending);
        ending.finally(() => inFlight.delete(ending)).catch(() => {});
      }
    },

    /**
     * The settle windows left open by a backend that is gone: watched here to their end (after a
     * restart too). Called at start and while this backend leads.
     */
    async resumeSettleWindows() {
      for (const entry of await history.adoptOpenWindows(cluster.isGone)) {
        const changes = (await history.changesOf([entry.id])).get(entry.id) ?? [];
        watchSettle(runOf(entry, changes), snapshotBefore(changes), null, { resumed: true });
      }
    },

    /**
     * While this backend leads, looks every `everyMs` for actions and settle windows whose backend
     * is gone meanwhile (with several backends: one killed while the others run on). Returns the
     * function that stops it.
     */
    watchInterrupted(everyMs: number) {
      const timer = setInterval(() => {
        if (!cluster.leads()) return;
        Promise.all([this.recoverInterrupted(), this.resumeSettleWindows()]).catch((error: unknown) =>
          logger.warn({ err: error }, "interrupted deploys could not be looked for; trying again"),
        );
      }, everyMs);
      timer.unref();
      return () => clearInterval(timer);
    },

    /**
     * Stops taking deploys and gives those in flight `graceMs` to end on their own; the rest
     * are abandoned, and each is still recorded, published and answered.
     */
    async shutdown(graceMs: number) {
      stopping = true;
      const settled = Promise.allSettled([...inFlight]);
      const grace = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([settled, grace]);
      shutdown.abort(new Shutdown());
      await Promise.allSettled([...inFlight]);
    },
  };

  /** Records the run (or finds the earlier run of the same idempotency key) and sets it going. */
  async function open({
    stack,
    action,
    caller,
    idempotencyKey,
    settleSeconds,
  }: DeployRequest): Promise<OpenRun> {
    requireVisible(caller.stacks, stack);
    const run: DeployRun = {
      id: randomUUID(),
      stack,
      action,
      via: caller.via,
      actorName: caller.actorName,
      startedAt: new Date(clock.now()),
      keyId: caller.via === "apiKey" ? caller.keyId : null,
    };
    const record = (tx?: Transaction) =>
      history.begin(
        {
          id: run.id,
          startedAt: run.startedAt,
          actor: caller.actorName,
          via: caller.via,
          userId: caller.userId,
          actorEmail: caller.email,
          keyId: caller.via === "apiKey" ? caller.keyId : null,
          stack,
          action,
        },
        tx,
      );
    // On record before anything reaches Komodo: a crash from here on leaves a running row, which
    // the next start marks as interrupted. Without the row, nothing is sent.
    try {
      if (idempotencyKey !== undefined) {
        const hash = requestHash({ stack, action, settleSeconds });
        const claim = await runs.claim(
          { ownerId: caller.userId, key: idempotencyKey, requestHash: hash, runId: run.id },
          record,
        );
        if (!claim.claimed) {
          if (claim.requestHash !== hash) throw new IdempotencyKeyReused();
          return await earlierRun(claim.runId, { stack, action });
        }
      } else {
        await record();
      }
    } catch (error) {
      if (error instanceof IdempotencyKeyReused || error instanceof DeployFailure) throw error;
      const outage = databaseOutage(error);
      if (outage)
        logger.warn({ stack, action, reason: outage.problem }, "deploy refused: the database is unavailable");
      else logger.error({ err: error, stack, action }, "deploy refused: the history could not be written");
      throw new DeployFailure(
        "unavailable",
        `${outage?.problem ?? "The history could not be written"}: '${action}' of '${stack}' was not ` +
          `started and nothing was sent to Komodo; ${outage?.advice ?? "see the server log"}`,
        { stack, action },
      );
    }
    events.started(run);
    const ending = follow(run, settleSeconds ?? defaultSettleSeconds);
    inFlight.add(ending);
    const forget = () => inFlight.delete(ending);
    ending.then(forget, forget);
    // Nobody awaits a run started asynchronously: its failure is told by its record and events.
    ending.catch(() => {});
    const opened = { run, outcome: () => ending };
    if (idempotencyKey !== undefined) {
      keyedRuns.set(run.id, opened);
      // A Map iterates in insertion order: the first key is the oldest.
      if (keyedRuns.size > REMEMBERED_KEYED_RUNS) keyedRuns.delete(keyedRuns.keys().next().value as string);
    }
    return opened;
  }

  /** The run an idempotency key already started: live or remembered, else as the history has it. */
  async function earlierRun(id: string, target: { stack: string; action: DeployAction }): Promise<OpenRun> {
    const remembered = keyedRuns.get(id);
    if (remembered) return { ...remembered, replayed: true };
    const entry = await runs.find(id);
    if (!entry) {
      throw new DeployFailure(
        "unexpected",
        `The run ${id} of this Idempotency-Key is not in the history`,
        target,
      );
    }
    return { run: startedRunOf(entry), outcome: () => recordedOutcome(id, target), replayed: true };
  }

  /** The outcome of a run this instance does not hold, from its history row once it has ended. */
  async function recordedOutcome(id: string, target: { stack: string; action: DeployAction }) {
    const deadline = deadlineIn(deployTimeoutMs + RECORDED_OUTCOME_POLL_MS);
    let entry = await runs.find(id);
    while (entry?.running && !deadline.passed()) {
      await new Promise((resolve) => setTimeout(resolve, RECORDED_OUTCOME_POLL_MS));
      entry = await runs.find(id);
    }
    if (!entry || entry.running) {
      throw new DeployFailure(
        "timed-out",
        `The run ${id} of this Idempotency-Key did not end in time`,
        target,
      );
    }
    if (!entry.success) throw new DeployFailure("komodo-failed", entry.message, target);
    return { success: true as const, message: entry.message, stack: entry.stack, action: entry.action };
  }

  /**
   * Records a run's end (history row, then its last stages and the `finished` event) and opens its
   * settle window. `note` follows a success's message (a run recovered from Komodo says so).
   */
  async function conclude(
    run: DeployRun,
    failure: DeployFailure | undefined,
    findings: Findings,
    settleSeconds: number,
    note = "",
  ) {
    const finishedAt = new Date(clock.now());
    const message = failure ? failure.message : successMessage(run.action, run.stack) + note;
    const finished: FinishedRun = {
      ...run,
      success: !failure,
      message,
      finishedAt,
      failure: failure?.kind,
      changes:
        findings.before || findings.after
          ? changesBetween(findings.before, findings.after ?? findings.before)
          : [],
      commit: commitBetween(findings.before, findings.after ?? findings.before),
      settle: settleOf(run, failure !== undefined, settleSeconds, finishedAt),
    };
    const { changes, commit, settle } = finished;
    await history.finish(run.id, {
      success: !failure,
      message,
      finishedAt,
      details: { stack: run.stack, changes, commit, settle: settle!, log: findings.log },
    });
    liveLogs.delete(run.id);
    announceStages(run, findings);
    events.finished(finished);
    watchSettle(finished, findings.before, findings.after);
    return finished;
  }

  /** Takes a recorded run to its end: Komodo's steps, then the history row and the `finished` event. */
  async function follow(run: DeployRun, settleSeconds: number): Promise<DeployAnswer> {
    const { stack, action } = run;
    const deadline = deadlineIn(deployTimeoutMs);
    const findings = noFindings();
    liveLogs.set(run.id, findings.log);
    let failure: DeployFailure | undefined;
    try {
      if (stopping) throw interrupted(action, stack);
      await lanes.run(stack, () => attempt(run, deadline, findings));
    } catch (error) {
      failure = failureOf(error, run, deadline);
      if (!failure) {
        logger.error({ err: error, stack, action }, "deploy crashed");
        failure = new DeployFailure("unexpected", "Unexpected error; see the server log", { stack, action });
      }
    }
    await conclude(run, failure, findings, settleSeconds);
    if (failure) throw failure;
    return { success: true as const, message: successMessage(action, stack), stack, action };
  }

  /**
   * How a run cut off with its backend really ended, from Komodo's Update of its last step (followed
   * to its end if it still runs). A last step that succeeded before the plan's end, or no Update at
   * all, is an interruption; Komodo's own success or failure of the plan's last step is the run's.
   */
  async function recover(entry: HistoryEntry) {
    const run = startedRunOf(entry);
    const findings = noFindings();
    const updates = entry.komodoUpdates ?? [];
    const last = updates.at(-1);
    let failure: DeployFailure | undefined = new DeployFailure("unavailable", INTERRUPTED_MESSAGE, run);
    if (last) {
      try {
        const client = connection.requireClient();
        for (const id of updates.slice(0, -1))
          appendStages(findings.log, stagesOf(await client.getUpdate(id)));
        const update = await client.waitForUpdate(await client.getUpdate(last), {
          deadline: deadlineIn(deployTimeoutMs),
          signal: shutdown.signal,
        });
        appendStages(findings.log, stagesOf(update));
        const step = entry.step as DeployStep | null;
        const endsThePlan = step === stepOf[lastStepOf[run.action]];
        if (!update.success)
          failure = new DeployFailure("komodo-failed", `${failedUpdateReason(update)} (${RECOVERED})`, run);
        else if (!endsThePlan)
          failure = new DeployFailure(
            "unavailable",
            `interrupted after the ${step} step, which succeeded in Komodo; the rest was not sent (${RECOVERED})`,
            run,
          );
        else failure = undefined;
        // What runs now; what ran before is unknown here, but a pull restarts nothing.
        const now = await snapshotFor(client, run);
        if (run.action === "pull") findings.before = now;
        else findings.after = now;
        if (!failure)
          logger.info({ stack: run.stack, action: run.action }, "deploy recovered from Komodo's outcome");
      } catch (error) {
        logger.warn({ err: error, stack: run.stack }, "a cut deploy's outcome could not be read from Komodo");
      }
    }
    if (failure)
      logger.warn({ stack: run.stack, action: run.action, startedAt: run.startedAt }, "deploy interrupted");
    return conclude(run, failure, findings, 0, ` (${RECOVERED})`);
  }
}

/** What ran before a deploy, as its recorded changes tell it: the digests, not the containers. */
const snapshotBefore = (changes: ServiceChange[]): StackSnapshot | null =>
  changes.length === 0
    ? null
    : {
        commit: null,
        services: changes.map(({ service, image, from }) => ({
          service,
          image,
          digest: from,
          state: null,
          status: null,
          createdAt: null,
          containerId: null,
        })),
      };

/** A history row's run as it started. */
const startedRunOf = (entry: HistoryEntry): DeployRun => ({
  id: entry.id,
  stack: entry.stack,
  action: entry.action,
  via: entry.via,
  actorName: entry.actor,
  startedAt: entry.startedAt,
  keyId: entry.keyId,
});

/** A history row's run, as deploy events carry it. */
const runOf = (entry: HistoryEntry, changes: ServiceChange[]): FinishedRun => ({
  ...startedRunOf(entry),
  success: entry.success,
  message: entry.message,
  finishedAt: entry.createdAt,
  changes,
  commit:
    entry.commitFrom === null && entry.commitTo === null
      ? null
      : { from: entry.commitFrom, to: entry.commitTo, message: entry.commitMessage },
  settle:
    entry.settleState === null
      ? null
      : { state: entry.settleState, reason: entry.settleReason, until: entry.settleUntil },
});

export type DeployService = ReturnType<typeof createDeployService>;
