/**
 * Runs `work` on every item, at most `limit` at a time, in the items' order. `cancel()` stops the
 * items not yet started (and returns them); the ones already started run to their end. `done`
 * resolves once every started item has settled. `work` reports its own outcome: a rejection counts
 * as settled and never stops the others.
 */
export interface LimitedRun<Item> {
  cancel(): Item[];
  done: Promise<void>;
}

export function runLimited<Item>(
  items: readonly Item[],
  limit: number,
  work: (item: Item) => Promise<unknown>,
): LimitedRun<Item> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a whole number ≥ 1, not ${limit}`);
  const waiting = [...items];
  let active = 0;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });

  const startNext = () => {
    while (active < limit && waiting.length > 0) {
      const item = waiting.shift() as Item;
      active += 1;
      let settled: Promise<unknown>;
      try {
        settled = Promise.resolve(work(item));
      } catch (error) {
        settled = Promise.reject(error);
      }
      settled
        .catch(() => {})
        .then(() => {
          active -= 1;
          startNext();
        });
    }
    if (active === 0 && waiting.length === 0) finish();
  };
  startNext();

  return {
    cancel: () => {
      const unsent = waiting.splice(0);
      if (active === 0) finish();
      return unsent;
    },
    done,
  };
}
