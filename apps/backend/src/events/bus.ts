import { type Cluster, singleBackend } from "../db/cluster.ts";
import type { DeployEvent, DeployRun, FinishedRun } from "../deploy/run.ts";
import type { RunLog, RunStage } from "../deploy/stage-logs.ts";

type Listener = (event: DeployEvent) => void;

const TOPIC = "deploy-events";

/** A run starting, ending or settling, or stages it logged: what listeners hear. */
type RunEvent = Exclude<DeployEvent, { type: "subscribed" }>;
type LogEvent = Extract<DeployEvent, { type: "log" }>;

/**
 * What backends tell each other: the run events, but a log by reference (its output may be far
 * more than a notification carries): the receiver reads the stages from `from` on in the database.
 */
type ClusterEvent = Exclude<RunEvent, LogEvent> | { type: "log"; runId: string; stack: string; from: number };

/**
 * Deploy events, held in memory: the runs in progress and whoever listens right now. Nothing is
 * kept for replay; finished runs live in the history. With several backends on one database, each
 * tells the others its events, so every event stream carries every deploy; the observers (alerts,
 * metrics, scans after a deploy) hear only this backend's own, which it alone acts on.
 */
export function createDeployEventBus({
  cluster = singleBackend,
  readLog = async () => undefined,
}: {
  cluster?: Cluster;
  /** A run's stages as kept in the database, for a log another backend announced. */
  readLog?: (runId: string) => Promise<RunLog | undefined>;
} = {}) {
  const running = new Map<string, DeployRun>();
  const listeners = new Set<Listener>();
  const closeHandlers = new Set<() => void>();

  /** Listeners that are not event streams (metrics): not counted by `listenerCount`. */
  const observers = new Set<Listener>();

  /** How many stages of each run this backend has announced, to tell another backend where the new ones start. */
  const announcedStages = new Map<string, number>();

  const apply = (event: RunEvent) => {
    if (event.type === "started") running.set(event.run.id, event.run);
    else if (event.type === "finished") running.delete(event.run.id);
    for (const listener of listeners) listener(event);
  };
  const publish = (event: RunEvent, told: ClusterEvent = event as ClusterEvent) => {
    apply(event);
    for (const observer of observers) observer(event);
    cluster.publish(TOPIC, told);
  };
  async function hear(told: ClusterEvent) {
    if (told.type !== "log") return apply(revive(told));
    const log = await readLog(told.runId).catch(() => undefined);
    const stages = log?.stages.slice(told.from) ?? [];
    if (stages.length > 0) apply({ type: "log", runId: told.runId, stack: told.stack, stages });
  }
  const stopHearing = cluster.subscribe(TOPIC, (event) => void hear(event as ClusterEvent));

  return {
    started(run: DeployRun) {
      publish({ type: "started", run });
    },
    /** Stages a run logged, kept in the database first (another backend reads them there). */
    log(runId: string, stack: string, stages: RunStage[]) {
      const from = announcedStages.get(runId) ?? 0;
      announcedStages.set(runId, from + stages.length);
      publish({ type: "log", runId, stack, stages }, { type: "log", runId, stack, from });
    },
    finished(run: FinishedRun) {
      announcedStages.delete(run.id);
      publish({ type: "finished", run });
    },
    /** How a watched deploy ended (its `settle`), after its `finished`. */
    settled(run: FinishedRun) {
      publish({ type: "settled", run });
    },
    running: () => [...running.values()],
    /** Subscribes and hands back the runs in progress at that moment, atomically. */
    subscribe(listener: Listener) {
      listeners.add(listener);
      return { running: [...running.values()], unsubscribe: () => listeners.delete(listener) };
    },
    listenerCount: () => listeners.size,
    /** Hears every event without counting as a subscriber; returns the function that stops it. */
    observe(observer: Listener) {
      observers.add(observer);
      return () => observers.delete(observer);
    },
    /** Registers what to do when the bus closes (shutdown): event streams end there. */
    onClose(handler: () => void) {
      closeHandlers.add(handler);
      return () => closeHandlers.delete(handler);
    },
    close() {
      stopHearing();
      for (const handler of closeHandlers) handler();
      closeHandlers.clear();
    },
  };
}

export type DeployEventBus = ReturnType<typeof createDeployEventBus>;

/** The stack an event is about. */
export const stackOf = (event: RunEvent) => (event.type === "log" ? event.stack : event.run.stack);

/** An event as another backend sent it, its times turned back from JSON strings into dates. */
function revive(event: Exclude<RunEvent, LogEvent>): Exclude<RunEvent, LogEvent> {
  const startedAt = new Date(event.run.startedAt);
  if (event.type === "started") return { type: "started", run: { ...event.run, startedAt } };
  const { settle } = event.run;
  const run = {
    ...event.run,
    startedAt,
    finishedAt: new Date(event.run.finishedAt),
    settle: settle && { ...settle, until: settle.until && new Date(settle.until) },
  };
  return { type: event.type, run };
}
