import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/logger.ts";
import type { ScanStore } from "./store.ts";
import type { TrivyReportSummary, Vulnerability } from "./trivy-report.ts";
import type { TrivyErrorKind, TrivyScanResult } from "./trivy-runner.ts";

/** Scans that run at the same time (service specification, Limits). */
export const SCAN_CONCURRENCY = 2;
/** While the scanner is unavailable, listings and sweeps try it again at most this often. */
export const SCANNER_RETRY_MS = 30_000;

/** A scan's outcome, or the scanner itself being unusable (no image's fault): then why, and the fix. */
export type ScanAttempt = TrivyScanResult | { ok: false; scannerUnavailable: string };

export type ScanImage = (image: string, signal: AbortSignal) => Promise<ScanAttempt>;

export type ScannerStatus = { available: true } | { available: false; reason: string; since: Date };

/** How one scan ended, once it is stored: for alerts and metrics. */
export type ScanFinished =
  | {
      image: string;
      outcome: "done";
      report: TrivyReportSummary;
      /** The previous successful scan's findings; null when there was none. */
      previous: Vulnerability[] | null;
    }
  | { image: string; outcome: "failed"; errorKind: TrivyErrorKind }
  | { image: string; outcome: "scanner-unavailable" };

export interface Enqueued {
  /** Images queued by this call. */
  queued: string[];
  /** Images left where they were: waiting or running already. */
  alreadyQueued: string[];
}

/**
 * First in, first out, two at a time, never the same image twice (waiting or running). Each
 * transition is written to the store before the next step; after `stop()` nothing is written.
 *
 * When the scanner itself cannot be used (Trivy missing, its server unreachable), the image goes back
 * to the head of the line instead of failing, the queue pauses, and this is logged once. While paused,
 * `retryScanner` runs one scan as a probe; the first report resumes the queue.
 */
export function createScanQueue({
  store,
  scan,
  clock,
  logger,
  onFinished = () => {},
}: {
  store: ScanStore;
  scan: ScanImage;
  clock: Clock;
  logger: Logger;
  onFinished?: (finished: ScanFinished) => void;
}) {
  const waiting: string[] = [];
  const waitingSet = new Set<string>();
  const running = new Map<string, Promise<void>>();
  const stopping = new AbortController();
  let idleWaiters: Array<() => void> = [];
  let scanner: ScannerStatus = { available: true };
  /** When the last probe of an unavailable scanner ended (or the scanner was found unavailable). */
  let lastProbeAt = 0;
  /** A probe ended in the image's own failure (a registry refusal, say): that proves nothing, probe the next. */
  let probeAgain = false;

  const isQueued = (image: string) => waitingSet.has(image) || running.has(image);
  /** Nothing runs, and nothing waiting can start: all waiting scans wait for the scanner. */
  const isSettled = () => running.size === 0 && (waiting.length === 0 || !scanner.available);

  /** Starts the scan; resolves once it is stored as scanning (or could not be). */
  function start(image: string): Promise<void> {
    waitingSet.delete(image);
    let marked!: () => void;
    const stored = new Promise<void>((resolve) => {
      marked = resolve;
    });
    const run = scanOne(image, marked).finally(() => {
      marked();
      running.delete(image);
      void pump();
    });
    running.set(image, run);
    return stored;
  }

  /** Starts what may start now; resolves once those scans are stored as scanning. */
  function pump(): Promise<unknown> {
    const started: Promise<void>[] = [];
    if (!stopping.signal.aborted && scanner.available) {
      while (running.size < SCAN_CONCURRENCY && waiting.length > 0) started.push(start(waiting.shift()!));
    } else if (!stopping.signal.aborted && probeAgain && running.size === 0 && waiting.length > 0) {
      probeAgain = false;
      started.push(start(waiting.shift()!));
    }
    if (isSettled()) {
      for (const wake of idleWaiters) wake();
      idleWaiters = [];
    }
    return Promise.all(started);
  }

  async function scannerUnavailable(image: string, reason: string, previousAttempt: Date | null) {
    await store.returnToQueue(image, previousAttempt);
    waiting.unshift(image);
    waitingSet.add(image);
    lastProbeAt = clock.now();
    if (!scanner.available) return;
    scanner = { available: false, reason, since: new Date(clock.now()) };
    logger.warn(
      { reason, waiting: waiting.length },
      "image scans are paused: the scanner is not available; they resume once it is",
    );
  }

  function scannerWorks() {
    if (scanner.available) return;
    scanner = { available: true };
    logger.info("the scanner is available again; queued image scans resume");
  }

  async function scanOne(image: string, marked: () => void) {
    try {
      const previousAttempt = await store.markScanning(image, new Date(clock.now()));
      marked();
      const result = await scan(image, stopping.signal);
      if (stopping.signal.aborted) return;
      if ("scannerUnavailable" in result) {
        await scannerUnavailable(image, result.scannerUnavailable, previousAttempt);
        onFinished({ image, outcome: "scanner-unavailable" });
        return;
      }
      if (result.ok) {
        scannerWorks();
        const before = await store.record(image);
        const previous = before?.scannedAt ? before.vulnerabilities : null;
        await store.markDone(image, result.report, new Date(clock.now()));
        logger.debug({ image, counts: result.report.counts }, "image scanned");
        onFinished({ image, outcome: "done", report: result.report, previous });
      } else {
        if (!scanner.available) probeAgain = true;
        await store.markFailed(image, result.errorKind, result.error);
        logger.info({ image, errorKind: result.errorKind, error: result.error }, "image scan failed");
        onFinished({ image, outcome: "failed", errorKind: result.errorKind });
      }
    } catch (error) {
      // The row keeps its last written state; a restart marks it interrupted.
      logger.error({ err: error, image }, "image scan could not be recorded");
    }
  }

  return {
    /**
     * Queues the images not already waiting or running, in the order given, once they are stored
     * as queued; throws (queuing none) when the store will not take them.
     */
    async enqueue(images: Iterable<string>): Promise<Enqueued> {
      const result: Enqueued = { queued: [], alreadyQueued: [] };
      if (stopping.signal.aborted) return result;
      for (const image of new Set(images)) {
        (isQueued(image) ? result.alreadyQueued : result.queued).push(image);
      }
      if (result.queued.length === 0) return result;
      // Taken at once, so that a call while this one writes finds them already queued.
      for (const image of result.queued) waitingSet.add(image);
      try {
        await store.markQueued(result.queued, new Date(clock.now()));
      } catch (error) {
        for (const image of result.queued) waitingSet.delete(image);
        throw error;
      }
      if (stopping.signal.aborted) return result;
      waiting.push(...result.queued);
      // Answered once the scans that start now are stored as scanning, so a listing shows them so.
      await pump();
      return result;
    },

    /** Resolves once nothing runs and nothing waiting can start (it waits for the scanner, or nothing waits). */
    idle(): Promise<void> {
      if (isSettled()) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },

    scannerStatus: (): ScannerStatus => scanner,

    /** How many scans wait and how many run right now. */
    size: () => ({ waiting: waiting.length, running: running.size }),

    /**
     * While the scanner is unavailable: scans the head of the line as a probe, unless a scan is
     * running or (without `now`) the last probe was less than SCANNER_RETRY_MS ago.
     */
    retryScanner({ now = false }: { now?: boolean } = {}) {
      if (scanner.available || stopping.signal.aborted || running.size > 0 || waiting.length === 0) return;
      if (!now && clock.now() - lastProbeAt < SCANNER_RETRY_MS) return;
      void start(waiting.shift()!);
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
        await store.interruptUnfinished();
      } catch (error) {
        logger.error({ err: error }, "unfinished image scans could not be marked interrupted");
      }
      await Promise.all(running.values());
    },
  };
}

export type ScanQueue = ReturnType<typeof createScanQueue>;
