import type { deployEvent, deployRun } from "@stackgate/contract";
import { useEffect, useRef, useSyncExternalStore } from "react";
import type { z } from "zod";
import { api } from "./api.ts";

export type DeployEvent = z.infer<typeof deployEvent>;
export type DeployRun = z.infer<typeof deployRun>;
type Listener = (event: DeployEvent) => void;

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

/**
 * One live deploy-event subscription per browser tab, shared by every island: it opens with
 * the first listener, reconnects with backoff when the stream breaks, and keeps the runs in
 * progress (from `subscribed`, `started` and `finished`) for whoever asks. `log` (a run's stages as
 * they become known) and `settled` (whether a finished deploy stayed up) go to the listeners only.
 */
const listeners = new Set<Listener>();
const storeListeners = new Set<() => void>();
interface LiveState {
  /** Stackgate's own deploys in progress (people and pipelines). */
  running: DeployRun[];
  /** Deploys and pulls in progress that Stackgate did not start, seen on Komodo's update stream. */
  komodoRunning: DeployRun[];
  connected: boolean;
}
const disconnected: LiveState = { running: [], komodoRunning: [], connected: false };
/** Listeners of the runs from Komodo, kept apart: they are not Stackgate's actions (no history). */
const komodoListeners = new Set<Listener>();
const fromKomodo = (run: DeployRun) => run.source === "komodo";
/** Replaced, never mutated, so React sees each change as a new snapshot. */
let state = disconnected;
let controller: AbortController | undefined;

function setState(next: Partial<LiveState>) {
  state = { ...state, ...next };
  for (const notify of storeListeners) notify();
}

function apply(event: DeployEvent) {
  if (event.type === "subscribed") {
    setState({
      running: event.running.filter((run) => !fromKomodo(run)),
      komodoRunning: event.running.filter(fromKomodo),
      connected: true,
    });
    for (const listener of listeners) listener({ ...event, running: state.running });
    return;
  }
  // A run's stages and how it settled come after its start, and only for Stackgate's own runs.
  if (event.type === "log" || event.type === "settled") {
    for (const listener of listeners) listener(event);
    return;
  }
  const key = fromKomodo(event.run) ? "komodoRunning" : "running";
  const others = state[key].filter((run) => run.id !== event.run.id);
  setState({ [key]: event.type === "started" ? [...others, event.run] : others });
  for (const listener of key === "running" ? listeners : komodoListeners) listener(event);
}

/*
 * A loop of our own rather than oRPC's ClientRetryPlugin (checked against @orpc/client 1.16): the
 * plugin retries only a stream that fails, but a backend that shuts down cleanly ends the stream
 * (followDeployEvents returns when the bus closes), and the fetch adapter also reads a body that just
 * stops, with no error event, as a normal end; both must reconnect too. The plugin's attempt count
 * also never resets for the life of the iterator, while this back-off starts again at 1 s after
 * every event, so a connection that was healthy for hours is tried again after 1 s, not 30.
 */
async function follow(signal: AbortSignal) {
  let backoff = MIN_BACKOFF_MS;
  while (!signal.aborted) {
    try {
      const stream = await api.deploy.events(undefined, { signal });
      for await (const event of stream) {
        backoff = MIN_BACKOFF_MS;
        apply(event);
      }
    } catch {
      // Expected when the backend restarts or the network drops: wait and try again.
    }
    if (signal.aborted) return;
    setState({ connected: false });
    await new Promise((resolve) => setTimeout(resolve, backoff));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

const pageLoaded = () =>
  new Promise<void>((resolve) => {
    if (document.readyState === "complete") resolve();
    else window.addEventListener("load", () => resolve(), { once: true });
  });

const browserIdle = () =>
  new Promise<void>((resolve) => {
    if ("requestIdleCallback" in window) window.requestIdleCallback(() => resolve(), { timeout: 2_000 });
    else setTimeout(resolve, 0);
  });

/**
 * The stream waits for the page's load event and a moment of idle time: it never competes with the
 * page's own requests and hydration. It is also asked for at low priority (api.ts), as it never ends:
 * Lighthouse waits for the "critical" (high priority) requests to end, and reported that the page
 * "loaded too slowly to finish" while the stream was open.
 */
async function afterPageLoad(): Promise<void> {
  await pageLoaded();
  await browserIdle();
}

/**
 * Listens to every deploy event of Stackgate's own deploys, or with `{ komodo: true }` to the runs
 * from Komodo instead; returns the function that stops listening.
 */
export function subscribeDeployEvents(listener: Listener, { komodo = false } = {}): () => void {
  (komodo ? komodoListeners : listeners).add(listener);
  if (!controller) {
    controller = new AbortController();
    const { signal } = controller;
    void afterPageLoad().then(() => follow(signal));
  }
  return () => {
    listeners.delete(listener);
    komodoListeners.delete(listener);
    if (listeners.size === 0 && komodoListeners.size === 0 && storeListeners.size === 0) {
      controller?.abort();
      controller = undefined;
      setState(disconnected);
    }
  };
}

function subscribeStore(notify: () => void) {
  storeListeners.add(notify);
  const stop = subscribeDeployEvents(() => {});
  return () => {
    storeListeners.delete(notify);
    stop();
  };
}

/** The deploys in progress right now, from anyone (people, pipelines, and Komodo apart), kept live. */
export function useRunningDeploys(): LiveState {
  return useSyncExternalStore(
    subscribeStore,
    () => state,
    () => disconnected,
  );
}

/** Calls `onEvent` for every event of Stackgate's deploys while the component is mounted. */
export function useDeployEvents(onEvent: Listener) {
  useListener(onEvent, false);
}

/** Calls `onEvent` for every `started`/`finished` of a run from Komodo while the component is mounted. */
export function useKomodoDeployEvents(onEvent: Listener) {
  useListener(onEvent, true);
}

function useListener(onEvent: Listener, komodo: boolean) {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => subscribeDeployEvents((event) => handler.current(event), { komodo }), [komodo]);
}
