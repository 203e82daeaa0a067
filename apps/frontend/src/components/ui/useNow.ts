import { useCallback, useSyncExternalStore } from "react";

interface Clock {
  now: number;
  timer: ReturnType<typeof setInterval> | undefined;
  listeners: Set<() => void>;
}

/**
 * One clock per interval for the whole page: every component asking for the same interval reads the
 * same moment, so two marks of one deploy (a row's and the bulk panel's) never show two times.
 */
const clocks = new Map<number, Clock>();

function clockFor(intervalMs: number): Clock {
  let clock = clocks.get(intervalMs);
  if (!clock) {
    clock = { now: Date.now(), timer: undefined, listeners: new Set() };
    clocks.set(intervalMs, clock);
  }
  return clock;
}

function subscribe(intervalMs: number, listener: () => void): () => void {
  const clock = clockFor(intervalMs);
  clock.listeners.add(listener);
  clock.timer ??= setInterval(() => {
    clock.now = Date.now();
    for (const notify of clock.listeners) notify();
  }, intervalMs);
  return () => {
    clock.listeners.delete(listener);
    if (clock.listeners.size > 0) return;
    clearInterval(clock.timer);
    // The next component to ask starts from the time it asks, not from when this clock stopped.
    clocks.delete(intervalMs);
  };
}

/** The current time, updated every `intervalMs` while the component is mounted (for live durations). */
export function useNow(intervalMs = 1_000): number {
  // The same function while the interval stays: a new one would resubscribe on every render.
  const subscribeToClock = useCallback(
    (listener: () => void) => subscribe(intervalMs, listener),
    [intervalMs],
  );
  return useSyncExternalStore(
    subscribeToClock,
    () => clockFor(intervalMs).now,
    // The server renders each page at its own moment; it keeps no clock.
    () => (typeof window === "undefined" ? Date.now() : clockFor(intervalMs).now),
  );
}

/** A duration as a clock reads it: 0:07, 12:30, 1:02:03. */
export function formatDuration(milliseconds: number): string {
  const totalSeconds = Math.max(0, Math.floor(milliseconds / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = String(totalSeconds % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}
