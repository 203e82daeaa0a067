import type { DeployEvent, DeployRun, FinishedRun } from "../deploy/run.ts";

type Listener = (event: DeployEvent) => void;

/**
 * Deploy events, held in memory for this backend instance only: the runs in progress and
 * whoever listens right now. Nothing is kept for replay; finished runs live in the history.
 */
export function createDeployEventBus() {
  const running = new Map<string, DeployRun>();
  const listeners = new Set<Listener>();
  const closeHandlers = new Set<() => void>();

  /** Listeners that are not event streams (metrics): not counted by `listenerCount`. */
  const observers = new Set<Listener>();

  const publish = (event: DeployEvent) => {
    for (const listener of listeners) listener(event);
    for (const observer of observers) observer(event);
  };

  return {
    started(run: DeployRun) {
      running.set(run.id, run);
      publish({ type: "started", run });
    },
    finished(run: FinishedRun) {
      running.delete(run.id);
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
      for (const handler of closeHandlers) handler();
      closeHandlers.clear();
    },
  };
}

export type DeployEventBus = ReturnType<typeof createDeployEventBus>;
