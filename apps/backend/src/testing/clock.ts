import type { Clock } from "../platform/clock.ts";

/** A clock the test moves by hand. */
export function manualClock(start = Date.parse("2026-11-22T12:00:00Z")) {
  let now = start;
  return {
    now: () => now,
    set: (time: number | string) => {
      now = typeof time === "string" ? Date.parse(time) : time;
    },
    advance: (ms: number) => {
      now += ms;
    },
  } satisfies Clock & Record<string, unknown>;
}
