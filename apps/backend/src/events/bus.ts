import { type Cluster, singleBackend } from "../db/cluster.ts";
import type { DeployEvent, DeployRun, FinishedRun } from "../deploy/run.ts";

type Listener = (event: DeployEvent) => void;

const TOPIC = "deploy-events";

/** A run starting or ending: what backends tell each other. */
type RunEvent = Extract<DeployEvent, { type: "started" | "finished" }>;

/**
 * Deploy events, held in memory: the runs in progress and whoever listens right now. Nothing is
 * kept for replay; finished runs live in the history. With several backends on one database, each
 * tells the others its events, so every event stream carries every deploy; the observers (alerts,
 * metrics, scans after a deploy) hear only this backend's own, which it alone acts on.
 */
export function createDeployEventBus({ cluster = singleBackend }: { cluster?: Cluster } = {}) {
  const running = new Map<string, DeployRun>();
  const listeners = new Set<Listener>();
  const closeHandlers = new Set<() => void>();

  /** Listeners that are not event streams (metrics): not counted by `listenerCount`. */
  const observers = new Set<Listener>();

  const apply = (event: RunEvent) => {
    if (event.type === "started") running.set(event.run.id, event.run);
    else running.delete(event.run.id);
    for (const listener of listeners) listener(event);
  };
  const publish = (event: RunEvent) => {
    apply(event);
    for (const observer of observers) observer(event);
    cluster.publish(TOPIC, event);
  };
  const stopHearing = cluster.subscribe(TOPIC, (event) => apply(revive(event as RunEvent)));

  return {
    started(run: DeployRun) {
      publish({ type: "started", run });
    },
    finished(run: FinishedRun) {
      publish({ type: "finished", run });
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

/** An event as another backend sent it, its times turned back from JSON strings into dates. */
function revive(event: RunEvent): RunEvent {
  const startedAt = new Date(event.run.startedAt);
  return event.type === "finished"
    ? { type: "finished", run: { ...event.run, startedAt, finishedAt: new Date(event.run.finishedAt) } }
    : { type: "started", run: { ...event.run, startedAt } };
}
