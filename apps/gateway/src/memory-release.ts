import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Collect = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;
let collectGarbage: Collect | undefined;

/**
 * V8's collection of everything it can, the one that also hands emptied pages back to the system (a
 * plain `gc()` leaves them mapped), made callable without `--expose-gc` on the command line.
 */
function collectEverything(): void {
  if (!collectGarbage) {
    setFlagsFromString("--expose-gc");
    collectGarbage = runInNewContext("gc") as Collect;
  }
  collectGarbage({ type: "major", execution: "sync", flavor: "last-resort" });
}

/**
 * Gives the memory of a busy spell back once it is over (the backend's
 * apps/backend/src/platform/memory-release.ts, which the gateway's single-file build does not share).
 * V8 starts a full collection when the heap grows, not when it falls idle: after thousands of event
 * streams closed, their dead objects stayed resident. Once `threshold` of them have ended and none has
 * ended for `quietMs`, this runs one full collection: once per spell, never per request.
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
    /** Counts one ended stream or request. */
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
