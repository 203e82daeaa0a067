import type { ConnectionService } from "../connection/service.ts";
import type { DeployRun } from "../deploy/run.ts";
import type { Logger } from "../platform/logger.ts";
import type { KomodoClient, KomodoUpdateListItem } from "../upstream/komodo-client.ts";
import type { DeployEventBus } from "./bus.ts";

/** Komodo's service users, named as Komodo's UI names them (upstream facts, section 5). */
const SERVICE_USERS: Record<string, string> = {
  "000000000000000000000003": "Git Webhook",
  "000000000000000000000004": "Auto Redeploy",
};

const ACTIONS: Record<string, DeployRun["action"]> = {
  PullStack: "pull",
  PullStackService: "pull",
  DeployStack: "redeploy",
  DeployStackService: "redeploy",
};

/**
 * Publishes the deploys and pulls that Stackgate did not start (someone in Komodo's UI, Komodo's
 * auto-update, a webhook) on the event bus as they happen, marked `source: "komodo"`, from the
 * update stream's messages. They are not recorded in the history: that holds Stackgate's own actions.
 * A run whose completion never arrives (the stream was down then) is read once after `staleAfterMs`.
 */
export function publishKomodoRuns({
  connection,
  events,
  logger,
  staleAfterMs,
  leads = () => true,
}: {
  /** With several backends, only the one that leads publishes them (the others hear it from it). */
  leads?: () => boolean;
  connection: ConnectionService;
  events: DeployEventBus;
  logger: Logger;
  staleAfterMs: number;
}) {
  const stackNames = new Map<string, string>();
  const running = new Map<string, { run: DeployRun; timer: NodeJS.Timeout }>();
  // Messages are handled one at a time, so that a name lookup cannot reorder them.
  let queue: Promise<void> = Promise.resolve();

  async function nameOf(stackId: string, client: KomodoClient): Promise<string | undefined> {
    if (!stackNames.has(stackId)) {
      for (const stack of await client.listAllStacks()) stackNames.set(stack.id, stack.name);
    }
    return stackNames.get(stackId);
  }

  function finish(id: string, success: boolean): void {
    const entry = running.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    running.delete(id);
    const { run } = entry;
    const message = success
      ? `Komodo finished ${run.operation} of '${run.stack}'`
      : `Komodo reported ${run.operation} of '${run.stack}' as failed; see the stack in Komodo`;
    // Komodo's own runs are announced, not recorded: what they changed is not read.
    events.finished({
      ...run,
      success,
      message,
      finishedAt: new Date(),
      changes: [],
      commit: null,
      settle: null,
    });
  }

  function watchForStaleness(id: string, client: KomodoClient): NodeJS.Timeout {
    const timer = setTimeout(async () => {
      const entry = running.get(id);
      if (!entry) return;
      try {
        const update = await client.getUpdate(id);
        if (update.status === "Complete") return finish(id, update.success);
      } catch (error) {
        logger.debug({ err: error, update: id }, "could not read a Komodo update");
      }
      if (running.get(id) === entry) entry.timer = watchForStaleness(id, client);
    }, staleAfterMs);
    timer.unref();
    return timer;
  }

  async function handle(item: KomodoUpdateListItem, client: KomodoClient): Promise<void> {
    const action = ACTIONS[item.operation];
    if (item.target.type !== "Stack" || !action || !leads()) return;
    if (!running.has(item.id)) {
      const stack = await nameOf(item.target.id, client);
      if (!stack) return;
      const serviceUser = SERVICE_USERS[item.operator];
      const run: DeployRun = {
        id: `komodo:${item.id}`,
        stack,
        action,
        via: serviceUser ? "apiKey" : "session",
        actorName: `Komodo: ${serviceUser ?? item.username}`,
        startedAt: new Date(item.start_ts),
        source: "komodo",
        operation: item.operation,
      };
      running.set(item.id, { run, timer: watchForStaleness(item.id, client) });
      events.started(run);
    }
    if (item.status === "Complete") finish(item.id, item.success);
  }

  const stop = connection.onOutsideUpdate((item, client) => {
    queue = queue
      .then(() => handle(item, client))
      .catch((error) => logger.debug({ err: error }, "a Komodo update could not be published"));
  });

  return {
    close() {
      stop();
      for (const { timer } of running.values()) clearTimeout(timer);
    },
  };
}
