import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Collect = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;
let collectGarbage: Collect | undefined;

/**
 * V8's collection of everything it can, the one that also hands emptied pages back to the system
 * (a plain `gc()` leaves them mapped), made callable without `--expose-gc` on the command line.
 */
function collectEverything(): void {
  if (!collectGarbage) {
    setFlagsFromString("--expose-gc");
    collectGarbage = runInNewContext("gc") as Collect;
  }
  collectGarbage({ type: "major", execution: "sync", flavor: "last-resort" });
}

/**
 * Gives the memory of a busy spell back once it is over. V8 returns a page to the system only when
 * a full collection finds it empty, and it starts one when the heap grows, not when it falls idle:
 * after 5,000 event streams closed, their 30 MiB of dead objects stayed resident, and so did the
 * garbage of 50 listings (bench/RESULTS.md, issue 13). Once `threshold` requests or connections have
 * ended and none has ended for `quietMs`, this runs one full collection (100–300 ms with 5,000
 * streams' garbage on a busy machine; once per spell, never per request).
 */
export function createMemoryRelease({
  threshold = 500,
  quietMs = 2000,
  collect = collectEverything,
}: {
  threshold?: number;
  quietMs?: number;
  collect?: () => void;
} = {}) {
  let ended = 0;
  let timer: NodeJS.Timeout | undefined;
  return {
    /** Counts one ended request or connection. */
    ended() {
      ended++;
      if (ended < threshold) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        ended = 0;
        collect();
      }, quietMs).unref();
    },
  };
}

export type MemoryRelease = ReturnType<typeof createMemoryRelease>;
