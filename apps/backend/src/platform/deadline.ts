/**
 * A real-time limit on work with Komodo (a deploy, a stack's deletion), kept on the monotonic
 * clock. Not the injected `Clock`: that one stamps records and tests move it by hand, while a
 * limit must pass in real time, and a wall clock may jump.
 */
export interface Deadline {
  /** Whole milliseconds left (timers take no fractions); zero or less once it has passed. */
  remainingMs(): number;
  passed(): boolean;
}

export function deadlineIn(ms: number): Deadline {
  const end = performance.now() + ms;
  return {
    remainingMs: () => Math.ceil(end - performance.now()),
    passed: () => performance.now() >= end,
  };
}
