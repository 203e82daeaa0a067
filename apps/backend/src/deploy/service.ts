import { randomUUID } from "node:crypto";
import { type ConnectionService, NoConnectionError } from "../connection/service.ts";
import { type Cluster, singleBackend } from "../db/cluster.ts";
import type { Transaction } from "../db/database.ts";
import { databaseOutage } from "../db/outage.ts";
import type { DeployEventBus } from "../events/bus.ts";
import type { HistoryEntry, HistoryService } from "../history/service.ts";
import { type RunVisibility, requireVisible } from "../identity/apikeys/scope.ts";
import type { Caller } from "../identity/caller.ts";
import type { Clock } from "../platform/clock.ts";
import { type Deadline, deadlineIn } from "../platform/deadline.ts";
import type { Logger } from "../platform/logger.ts";
import type { StackLanes } from "../platform/stack-lanes.ts";
import { type KomodoClient, UpstreamError } from "../upstream/komodo-client.ts";
import type { DeployFailureKind, DeployRun, DeployRunStatus, DeployStep, FinishedRun } from "./run.ts";
import { IdempotencyKeyReused, type RunStore, requestHash, UnknownRunError } from "./runs.ts";

export type DeployAction = "pull" | "redeploy" | "pull-redeploy";
export type { DeployFailureKind };

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

type ExecuteStep = "PullStack" | "DestroyStack" | "DeployStack";

/** The step each execute call is, as runs show it. */
const stepOf: Record<ExecuteStep, DeployStep> = {
  PullStack: "pull",
  DestroyStack: "take-down",
  DeployStack: "deploy",
};

export const successMessage = (action: DeployAction, stack: string) =>
  `Acción '${action}' completada para '${stack}'`;

/** The reason in-flight deploys are abandoned with when the backend stops. */
class Shutdown extends Error {}

/** One deploy under way: what it does, and until when. */
interface Attempt {
  stack: string;
  action: DeployAction;
  deadline: Deadline;
  signal: AbortSignal;
  /** Told of each step as it begins. */
  onStep: (step: DeployStep) => void;
}

/** Runs one execute call and follows its Update to completion; a failed Update is a failure. */
async function step(
  client: KomodoClient,
  type: ExecuteStep,
  { stack, action, deadline, signal, onStep }: Attempt,
) {
  onStep(stepOf[type]);
  try {
    await client.executeAndWait(type, { stack }, { deadline, signal });
  } catch (error) {
    if (error instanceof UpstreamError && error.kind === "failed-update") {
      throw new DeployFailure("komodo-failed", `${type} failed: ${error.message}`, { stack, action });
    }
    throw error;
  }
}

async function redeploy(client: KomodoClient, attempt: Attempt) {
  const current = await client.findStack(attempt.stack);
  if (current?.info.state !== "down") await step(client, "DestroyStack", attempt);
  await step(client, "DeployStack", attempt);
}

type Plan = (client: KomodoClient, attempt: Attempt) => Promise<void>;

const plans: Record<DeployAction, Plan> = {
  pull: (client, attempt) => step(client, "PullStack", attempt),
  redeploy,
  "pull-redeploy": async (client, attempt) => {
    await step(client, "PullStack", attempt);
    await redeploy(client, attempt);
  },
};

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

export function createDeployService({
  connection,
  history,
  runs,
  events,
  clock,
  deployTimeoutMs,
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

  async function attempt(run: DeployRun, deadline: Deadline) {
    const { action, stack } = run;
    if (shutdown.signal.aborted) throw interrupted(action, stack);
    const onStep = (step: DeployStep) => {
      // The step is a courtesy to whoever follows the run; the deploy goes on without it.
      runs.setStep(run.id, step).catch((error: unknown) => {
        logger.warn({ err: error, stack, action, step }, "the deploy's step could not be recorded");
      });
      events.started({ ...run, step });
    };
    try {
      const client = connection.requireClient();
      if (!(await client.findStack(stack)))
        throw new DeployFailure(
          "unknown-stack",
          `Komodo has no stack named '${stack}': nothing was deployed. Check the name on the Stacks page (or with 'stackgate stacks')`,
          { stack, action },
        );
      await plans[action](client, {
        stack,
        action,
        deadline,
        signal: shutdown.signal,
        onStep,
      });
    } catch (error) {
      if (error instanceof DeployFailure) throw error;
      if (error instanceof Shutdown) throw interrupted(action, stack);
      if (error instanceof NoConnectionError)
        throw new DeployFailure("unavailable", error.message, { stack, action });
      // The client's per-call limit and the deploy's deadline both end as "timeout"; only the latter is a 504.
      if (error instanceof UpstreamError && error.kind === "timeout" && deadline.passed()) {
        throw new DeployFailure(
          "timed-out",
          `Komodo did not finish '${action}' of '${stack}' within ${Math.round(deployTimeoutMs / 1000)} s`,
          { stack, action },
        );
      }
      if (error instanceof UpstreamError)
        throw new DeployFailure("komodo-failed", error.message, { stack, action });
      throw error;
    }
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
        return { ...runOf(entry), status: "finished" };
      }
      const live = events.running().find((run) => run.id === id);
      const step = live?.step ?? (entry.step as DeployStep | null) ?? undefined;
      return { ...startedRunOf(entry), ...(step ? { step } : {}), status: "running" };
    },

    /**
     * Records the actions left running by a backend that is gone (this one's previous run, or
     * another backend on the database, crashed or killed) as failed, and publishes each like any
     * failed deploy (so it is alerted too). Called at start, then by `watchInterrupted`.
     */
    async recoverInterrupted() {
      for (const entry of await history.failInterrupted(cluster.isGone)) {
        const run = runOf(entry);
        logger.warn({ stack: run.stack, action: run.action, startedAt: run.startedAt }, "deploy interrupted");
        events.finished(run);
      }
    },

    /**
     * While this backend leads, looks every `everyMs` for actions whose backend is gone meanwhile
     * (with several backends: one killed while the others run on). Returns the function that stops it.
     */
    watchInterrupted(everyMs: number) {
      const timer = setInterval(() => {
        if (!cluster.leads()) return;
        this.recoverInterrupted().catch((error: unknown) =>
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
  async function open({ stack, action, caller, idempotencyKey }: DeployRequest): Promise<OpenRun> {
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
        const hash = requestHash({ stack, action });
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
    const ending = follow(run);
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

  /** Takes a recorded run to its end: Komodo's steps, then the history row and the `finished` event. */
  async function follow(run: DeployRun): Promise<DeployAnswer> {
    const { stack, action } = run;
    const deadline = deadlineIn(deployTimeoutMs);
    let failure: DeployFailure | undefined;
    try {
      if (stopping) throw interrupted(action, stack);
      await lanes.run(stack, () => attempt(run, deadline));
    } catch (error) {
      if (!(error instanceof DeployFailure)) logger.error({ err: error, stack, action }, "deploy crashed");
      failure =
        error instanceof DeployFailure
          ? error
          : new DeployFailure("unexpected", "Unexpected error; see the server log", { stack, action });
    }
    const message = failure ? failure.message : successMessage(action, stack);
    const finished: FinishedRun = {
      ...run,
      success: !failure,
      message,
      finishedAt: new Date(clock.now()),
      failure: failure?.kind,
    };
    await history.finish(run.id, finished);
    events.finished(finished);
    if (failure) throw failure;
    return { success: true as const, message, stack, action };
  }
}

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
const runOf = (entry: HistoryEntry): FinishedRun => ({
  ...startedRunOf(entry),
  success: entry.success,
  message: entry.message,
  finishedAt: entry.createdAt,
});

export type DeployService = ReturnType<typeof createDeployService>;
