import { describe, expect, test } from "vitest";
import { runLimited } from "./run-limited.ts";

/** A job per item whose end the test decides, recording how many run at once. */
function controlledJobs() {
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  const started: number[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const work = (item: number) =>
    new Promise<void>((resolve, reject) => {
      started.push(item);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      const end = () => {
        running -= 1;
        pending.delete(item);
      };
      pending.set(item, {
        resolve: () => {
          end();
          resolve();
        },
        reject: (error) => {
          end();
          reject(error);
        },
      });
    });
  const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { work, pending, started, flush, mostAtOnce: () => mostAtOnce };
}

describe("runLimited", () => {
  test("never runs more than the limit at once, and runs every item exactly once, in order", async () => {
    const jobs = controlledJobs();
    const items = Array.from({ length: 20 }, (_, index) => index);
    const run = runLimited(items, 3, jobs.work);
    expect(jobs.started).toEqual([0, 1, 2]);
    // Finish them in a scrambled order, failing some: the limit holds and failures do not stop the rest.
    let round = 0;
    while (jobs.pending.size > 0) {
      const keys = [...jobs.pending.keys()];
      const pick = keys[round % keys.length] as number;
      const job = jobs.pending.get(pick);
      if (round % 4 === 0) job?.reject(new Error("Komodo said no"));
      else job?.resolve();
      round += 1;
      await jobs.flush();
      expect(jobs.pending.size).toBeLessThanOrEqual(3);
    }
    await run.done;
    expect(jobs.mostAtOnce()).toBe(3);
    expect(jobs.started).toEqual(items);
  });

  test("a limit above the item count starts them all; an empty list is done at once", async () => {
    const jobs = controlledJobs();
    runLimited([1, 2], 5, jobs.work);
    expect(jobs.started).toEqual([1, 2]);
    await runLimited([], 3, jobs.work).done;
  });

  test("cancelling stops the items not yet sent and lets the sent ones finish", async () => {
    const jobs = controlledJobs();
    const run = runLimited([1, 2, 3, 4, 5, 6], 2, jobs.work);
    jobs.pending.get(1)?.resolve();
    await jobs.flush();
    expect(jobs.started).toEqual([1, 2, 3]);
    expect(run.cancel()).toEqual([4, 5, 6]);
    let finished = false;
    void run.done.then(() => {
      finished = true;
    });
    await jobs.flush();
    expect(finished).toBe(false);
    jobs.pending.get(2)?.resolve();
    jobs.pending.get(3)?.reject(new Error("failed"));
    await run.done;
    expect(jobs.started).toEqual([1, 2, 3]);
    expect(run.cancel()).toEqual([]);
  });

  test("refuses a limit that is not a whole number of at least 1", () => {
    const work = async () => {};
    expect(() => runLimited([1], 0, work)).toThrow(RangeError);
    expect(() => runLimited([1], 1.5, work)).toThrow(RangeError);
  });
});
