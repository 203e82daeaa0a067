import { randomUUID } from "node:crypto";
import type { Caller } from "../auth/caller.ts";
import { type ConnectionService, NoConnectionError } from "../connection/service.ts";
import { databaseOutage } from "../db/outage.ts";
import type { DeployEventBus } from "../events/bus.ts";
import type { HistoryEntry, HistoryService } from "../history/service.ts";
import type { Clock } from "../platform/clock.ts";
import { type Deadline, deadlineIn } from "../platform/deadline.ts";
import type { Logger } from "../platform/logger.ts";
import type { StackLanes } from "../platform/stack-lanes.ts";
import { type KomodoClient, UpstreamError } from "../upstream/komodo-client.ts";
import type { DeployRun, FinishedRun } from "./run.ts";

export type DeployAction = "pull" | "redeploy" | "pull-redeploy";

/**
 * Why a deploy did not succeed: Komodo refused or failed it, it could not be started or finished
 * (no connection, no history, Stackgate stopping), Komodo did not finish it in time, or a bug.
 */
export type DeployFailureKind = "komodo-failed" | "unavailable" | "timed-out" | "unexpected";

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
}

/** Runs one execute call and follows its Update to completion; a failed Update is a failure. */
async function step(client: KomodoClient, type: ExecuteStep, { stack, action, deadline, signal }: Attempt) {
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

export function createDeployService({
  connection,
  history,
  events,
  clock,
  deployTimeoutMs,
  lanes,
  logger,
}: {
  connection: ConnectionService;
  history: HistoryService;
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

  async function attempt(action: DeployAction, stack: string, deadline: Deadline) {
    if (shutdown.signal.aborted) throw interrupted(action, stack);
    try {
      await plans[action](connection.requireClient(), { stack, action, deadline, signal: shutdown.signal });
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
     * as failed, and publishes each like any failed deploy (so it is alerted too). Called once at start.
     */
    recoverInterrupted() {
      for (const entry of history.failInterrupted()) {
        const run = runOf(entry);
        logger.warn({ stack: run.stack, action: run.action, startedAt: run.startedAt }, "deploy interrupted");
        events.finished(run);
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
        "unavailable",
        `${outage?.problem ?? "The history could not be written"}: '${action}' of '${stack}' was not ` +
          `started and nothing was sent to Komodo; ${outage?.advice ?? "see the server log"}`,
        { stack, action },
      );
    }
    events.started(run);
    const deadline = deadlineIn(deployTimeoutMs);
    let failure: DeployFailure | undefined;
    try {
      if (stopping) throw interrupted(action, stack);
      await lanes.run(stack, () => attempt(action, stack, deadline));
    } catch (error) {
      if (!(error instanceof DeployFailure)) logger.error({ err: error, stack, action }, "deploy crashed");
      failure =
        error instanceof DeployFailure
          ? error
          : new DeployFailure("unexpected", "Unexpected error; see the server log", { stack, action });
    }
    const message = failure ? failure.message : successMessage(action, stack);
    const finished = { ...run, success: !failure, message, finishedAt: new Date(clock.now()) };
    history.finish(run.id, finished);
    events.finished(finished);
    if (failure) throw failure;
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
