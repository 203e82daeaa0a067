/** The time source services use, so tests can move time instead of waiting for it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
