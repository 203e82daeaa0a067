import { randomUUID } from "node:crypto";
import type { Caller } from "../auth/caller.ts";
import { type ConnectionService, NoConnectionError } from "../connection/service.ts";
import { databaseOutage } from "../db/outage.ts";
import type { DeployEventBus, DeployRun, FinishedRun } from "../events/bus.ts";
import type { HistoryEntry, HistoryService } from "../history/service.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/logger.ts";
import { type KomodoClient, UpstreamError } from "../upstream/komodo-client.ts";

export type DeployAction = "pull" | "redeploy" | "pull-redeploy";

/** A deploy that did not succeed, with the HTTP status it is answered with. */
export class DeployFailure extends Error {
  readonly status: 502 | 503 | 504;
  constructor(status: 502 | 503 | 504, message: string) {
    super(message);
    this.status = status;
  }
}

type ExecuteStep = "PullStack" | "DestroyStack" | "DeployStack";

export const successMessage = (action: DeployAction, stack: string) =>
  `Acción '${action}' completada para '${stack}'`;

/** The reason in-flight deploys are abandoned with when the backend stops. */
class Shutdown extends Error {}

interface Bounds {
  deadline: number;
  signal: AbortSignal;
}

/** Runs one execute call and follows its Update to completion; a failed Update is a failure. */
async function step(client: KomodoClient, type: ExecuteStep, stack: string, { deadline, signal }: Bounds) {
  try {
    await client.executeAndWait(type, { stack }, { deadline, signal });
  } catch (error) {
    if (error instanceof UpstreamError && error.kind === "failed-update") {
      throw new DeployFailure(502, `${type} failed: ${error.message}`);
    }
    throw error;
  }
}

async function redeploy(client: KomodoClient, stack: string, bounds: Bounds) {
  const current = await client.findStack(stack);
  if (current?.info.state !== "down") await step(client, "DestroyStack", stack, bounds);
  await step(client, "DeployStack", stack, bounds);
}

type Plan = (client: KomodoClient, stack: string, bounds: Bounds) => Promise<void>;

const plans: Record<DeployAction, Plan> = {
  pull: (client, stack, bounds) => step(client, "PullStack", stack, bounds),
  redeploy,
  "pull-redeploy": async (client, stack, bounds) => {
    await step(client, "PullStack", stack, bounds);
    await redeploy(client, stack, bounds);
  },
};

export function createDeployService({
  connection,
  history,
  events,
  clock,
  deployTimeoutMs,
  logger,
  onSucceeded = () => {},
  onFailed = () => {},
}: {
  connection: ConnectionService;
  history: HistoryService;
  events: DeployEventBus;
  clock: Clock;
  deployTimeoutMs: number;
  logger: Logger;
  /** Called after a successful deploy (the scanner queues the stack's images). */
  onSucceeded?: (stack: string) => void;
  /** Called after a failed deploy (failure alerts). */
  onFailed?: (run: FinishedRun) => void;
}) {
  /** Deploys of one stack run one after the other; different stacks run side by side. */
  const lanes = new Map<string, Promise<unknown>>();
  const inLane = <T>(stack: string, work: () => Promise<T>): Promise<T> => {
    const previous = lanes.get(stack) ?? Promise.resolve();
    const current = previous.then(work, work);
    lanes.set(stack, current);
    const release = () => {
      if (lanes.get(stack) === current) lanes.delete(stack);
    };
    current.then(release, release);
    return current;
  };

  let stopping = false;
  const shutdown = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  const interrupted = (action: DeployAction, stack: string) =>
    new DeployFailure(
      503,
      `Stackgate stopped before Komodo finished '${action}' of '${stack}'; check the stack in Komodo`,
    );

  async function attempt(action: DeployAction, stack: string, deadline: number) {
    if (shutdown.signal.aborted) throw interrupted(action, stack);
    try {
      await plans[action](connection.requireClient(), stack, { deadline, signal: shutdown.signal });
    } catch (error) {
      if (error instanceof DeployFailure) throw error;
      if (error instanceof Shutdown) throw interrupted(action, stack);
      if (error instanceof NoConnectionError) throw new DeployFailure(503, error.message);
      // The client's per-call limit and the deploy's deadline both end as "timeout"; only the latter is a 504.
      if (error instanceof UpstreamError && error.kind === "timeout" && Date.now() >= deadline) {
        throw new DeployFailure(
          504,
          `Komodo did not finish '${action}' of '${stack}' within ${Math.round(deployTimeoutMs / 1000)} s`,
        );
      }
      if (error instanceof UpstreamError) throw new DeployFailure(502, error.message);
      throw error;
    }
  }

  return {
    /** Runs the action to its real outcome; the history row is written before this returns. */
    run(request: { stack: string; action: DeployAction; caller: Caller }) {
      const running = runToEnd(request);
      inFlight.add(running);
      const forget = () => inFlight.delete(running);
      running.then(forget, forget);
      return running;
    },

    /**
     * Records the actions a previous run of the service left running (it crashed or was killed)
     * as failed, and publishes and alerts each like any failed deploy. Called once at start.
     */
    recoverInterrupted() {
      for (const entry of history.failInterrupted()) {
        const run = runOf(entry);
        logger.warn({ stack: run.stack, action: run.action, startedAt: run.startedAt }, "deploy interrupted");
        events.finished(run);
        onFailed(run);
      }
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

  async function runToEnd({
    stack,
    action,
    caller,
  }: {
    stack: string;
    action: DeployAction;
    caller: Caller;
  }) {
    const run: DeployRun = {
      id: randomUUID(),
      stack,
      action,
      via: caller.via,
      actorName: caller.actorName,
      startedAt: new Date(clock.now()),
    };
    // On record before anything reaches Komodo: a crash from here on leaves a running row, which
    // the next start marks as interrupted. Without the row, nothing is sent.
    try {
      history.begin({
        id: run.id,
        startedAt: run.startedAt,
        actor: caller.actorName,
        via: caller.via,
        userId: caller.userId,
        stack,
        action,
      });
    } catch (error) {
      const outage = databaseOutage(error);
      if (outage)
        logger.warn({ stack, action, reason: outage.problem }, "deploy refused: the database is unavailable");
      else logger.error({ err: error, stack, action }, "deploy refused: the history could not be written");
      throw new DeployFailure(
        503,
        `${outage?.problem ?? "The history could not be written"}: '${action}' of '${stack}' was not ` +
          `started and nothing was sent to Komodo; ${outage?.advice ?? "see the server log"}`,
      );
    }
    events.started(run);
    // A real-time bound, whatever clock the history uses.
    const deadline = Date.now() + deployTimeoutMs;
    let failure: DeployFailure | undefined;
    try {
      if (stopping) throw interrupted(action, stack);
      await inLane(stack, () => attempt(action, stack, deadline));
    } catch (error) {
      if (!(error instanceof DeployFailure)) logger.error({ err: error, stack, action }, "deploy crashed");
      failure =
        error instanceof DeployFailure
          ? error
          : new DeployFailure(502, "Unexpected error; see the server log");
    }
    const message = failure ? failure.message : successMessage(action, stack);
    const finished = { ...run, success: !failure, message, finishedAt: new Date(clock.now()) };
    history.finish(run.id, finished);
    events.finished(finished);
    if (failure) {
      onFailed(finished);
      throw failure;
    }
    onSucceeded(stack);
    return { success: true as const, message, stack, action };
  }
}

/** A history row's run, as deploy events carry it. */
const runOf = (entry: HistoryEntry): FinishedRun => ({
  id: entry.id,
  stack: entry.stack,
  action: entry.action,
  via: entry.via,
  actorName: entry.actor,
  startedAt: entry.startedAt,
  success: entry.success,
  message: entry.message,
  finishedAt: entry.createdAt,
});

export type DeployService = ReturnType<typeof createDeployService>;
