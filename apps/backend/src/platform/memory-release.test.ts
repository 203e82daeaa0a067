import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMemoryRelease } from "./memory-release.ts";

describe("memory release after a wave of closed connections", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("collects once, when enough have ended and the closing has paused", () => {
    const collect = vi.fn();
    const release = createMemoryRelease({ threshold: 3, quietMs: 100, collect });
    release.ended();
    release.ended();
    vi.advanceTimersByTime(1000);
    expect(collect).not.toHaveBeenCalled();
    release.ended();
    vi.advanceTimersByTime(60);
    release.ended();
    vi.advanceTimersByTime(60);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(40);
    expect(collect).toHaveBeenCalledTimes(1);
    release.ended();
    vi.advanceTimersByTime(1000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it("hands V8's emptied pages back: its own collection runs without --expose-gc", () => {
    const fill = () => Array.from({ length: 200_000 }, (_, index) => ({ index })).length;
    fill();
    const heapWithGarbage = process.memoryUsage().heapUsed;
    const release = createMemoryRelease({ threshold: 1, quietMs: 0 });
    release.ended();
    vi.runAllTimers();
    expect(process.memoryUsage().heapUsed).toBeLessThan(heapWithGarbage - 5 * 1024 * 1024);
  });
});
