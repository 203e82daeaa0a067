import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/logger.ts";
import type { ScanStore } from "./store.ts";
import type { TrivyScanResult } from "./trivy-runner.ts";

/** Scans that run at the same time (service specification, Limits). */
export const SCAN_CONCURRENCY = 2;

export type ScanImage = (image: string, signal: AbortSignal) => Promise<TrivyScanResult>;

export interface Enqueued {
  /** Images queued by this call. */
  queued: string[];
  /** Images left where they were: waiting or running already. */
  alreadyQueued: string[];
}

/**
 * First in, first out, two at a time, never the same image twice (waiting or running). Each
 * transition is written to the store before the next step; after `stop()` nothing is written.
 */
export function createScanQueue({
  store,
  scan,
  clock,
  logger,
}: {
  store: ScanStore;
  scan: ScanImage;
  clock: Clock;
  logger: Logger;
}) {
  const waiting: string[] = [];
  const waitingSet = new Set<string>();
  const running = new Map<string, Promise<void>>();
  const stopping = new AbortController();
  let idleWaiters: Array<() => void> = [];

  const isQueued = (image: string) => waitingSet.has(image) || running.has(image);

  function pump() {
    while (!stopping.signal.aborted && running.size < SCAN_CONCURRENCY && waiting.length > 0) {
      const image = waiting.shift()!;
      waitingSet.delete(image);
      const run = scanOne(image).finally(() => {
        running.delete(image);
        pump();
      });
      running.set(image, run);
    }
    if (running.size === 0 && waiting.length === 0) {
      for (const wake of idleWaiters) wake();
      idleWaiters = [];
    }
  }

  async function scanOne(image: string) {
    try {
      store.markScanning(image, new Date(clock.now()));
      const result = await scan(image, stopping.signal);
      if (stopping.signal.aborted) return;
      if (result.ok) {
        store.markDone(image, result.report, new Date(clock.now()));
        logger.debug({ image, counts: result.report.counts }, "image scanned");
      } else {
        store.markFailed(image, result.errorKind, result.error);
        logger.info({ image, errorKind: result.errorKind, error: result.error }, "image scan failed");
      }
    } catch (error) {
      // The row keeps its last written state; a restart marks it interrupted.
      logger.error({ err: error, image }, "image scan could not be recorded");
    }
  }

  return {
    /** Queues the images not already waiting or running, in the order given. */
    enqueue(images: Iterable<string>): Enqueued {
      const result: Enqueued = { queued: [], alreadyQueued: [] };
      if (stopping.signal.aborted) return result;
      for (const image of new Set(images)) {
        (isQueued(image) ? result.alreadyQueued : result.queued).push(image);
      }
      if (result.queued.length === 0) return result;
      store.markQueued(result.queued, new Date(clock.now()));
      for (const image of result.queued) {
        waiting.push(image);
        waitingSet.add(image);
      }
      pump();
      return result;
    },

    /** Resolves once nothing is waiting or running. */
    idle(): Promise<void> {
      if (running.size === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },

    /**
     * Drops the waiting scans and stops the running ones; both are stored as interrupted, so the
     * next listing or sweep after a restart queues them again. Resolves once every process is gone.
     */
    async stop() {
      if (stopping.signal.aborted) return;
      stopping.abort();
      waiting.length = 0;
      waitingSet.clear();
      try {
        store.interruptUnfinished();
      } catch (error) {
        logger.error({ err: error }, "unfinished image scans could not be marked interrupted");
      }
      await Promise.all(running.values());
    },
  };
}

export type ScanQueue = ReturnType<typeof createScanQueue>;
