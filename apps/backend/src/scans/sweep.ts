import type { Logger } from "../platform/logger.ts";
import type { Stack } from "../stacks/service.ts";
import type { KomodoClient } from "../upstream/komodo-client.ts";
import type { ScanSummary } from "./store.ts";

const DEPLOY_OPERATIONS = ["DeployStack", "DeployStackService"];
/** 100 Updates a page: far more deploys than any sweep window holds, and a guard against a looping server. */
const MAX_UPDATE_PAGES = 1_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Image → names of the stacks using it. */
export function stacksByImage(stacks: readonly Stack[]): Map<string, string[]> {
  const byImage = new Map<string, string[]>();
  for (const stack of stacks) {
    for (const image of stack.images) {
      const names = byImage.get(image);
      if (names) names.push(stack.name);
      else byImage.set(image, [stack.name]);
    }
  }
  return byImage;
}

/** What a listing queues: an image never scanned, or one whose scan a restart cut off. */
export function needsFirstScan(record: ScanSummary | undefined): boolean {
  return record === undefined || record.status === "interrupted";
}

/**
 * The sweep's choice without the upstream's deploys: images needing a first scan or whose last
 * attempt is older than the rescan interval are due; for the others, `deploysSince` is the
 * oldest time one of them was requested, from which on a deploy of its stack makes it due too
 * (null: nothing to ask Komodo about).
 */
export function planSweep({
  images,
  records,
  now,
  rescanIntervalMs,
}: {
  images: Iterable<string>;
  records: ReadonlyMap<string, ScanSummary>;
  now: number;
  rescanIntervalMs: number;
}): { due: string[]; deploysSince: number | null } {
  const due: string[] = [];
  let deploysSince = Number.POSITIVE_INFINITY;
  for (const image of images) {
    const record = records.get(image);
    const attemptedAt = record?.attemptedAt?.getTime();
    if (needsFirstScan(record) || (attemptedAt !== undefined && now - attemptedAt > rescanIntervalMs)) {
      due.push(image);
    } else if (record?.requestedAt) {
      deploysSince = Math.min(deploysSince, record.requestedAt.getTime());
    }
  }
  return { due, deploysSince: Number.isFinite(deploysSince) ? deploysSince : null };
}

/** Images of the stacks Komodo deployed after the image was last requested. */
export function deployedAfterRequest(
  stacks: readonly Stack[],
  records: ReadonlyMap<string, ScanSummary>,
  lastDeployByStackId: ReadonlyMap<string, number>,
): string[] {
  const images: string[] = [];
  for (const stack of stacks) {
    const deployedAt = lastDeployByStackId.get(stack.id);
    if (deployedAt === undefined) continue;
    for (const image of stack.images) {
      const requestedAt = records.get(image)?.requestedAt?.getTime();
      if (requestedAt === undefined || requestedAt < deployedAt) images.push(image);
    }
  }
  return images;
}

/**
 * The start time of the latest completed, successful deploy of each stack since `since`: one
 * ListUpdates query for all stacks, every page of it (newest first, 100 a page).
 */
export async function lastDeploysSince(
  client: KomodoClient,
  since: number,
  logger: Logger,
): Promise<Map<string, number>> {
  const query = {
    "target.type": "Stack",
    operation: { $in: DEPLOY_OPERATIONS },
    status: "Complete",
    success: true,
    start_ts: { $gte: since },
  };
  const latest = new Map<string, number>();
  let page = 0;
  for (let pages = 1; ; pages++) {
    const { updates, next_page } = await client.listUpdates(query, page);
    for (const update of updates) {
      if (update.target.type !== "Stack") continue;
      latest.set(update.target.id, Math.max(latest.get(update.target.id) ?? 0, update.start_ts));
    }
    if (next_page === undefined || next_page === null) break;
    if (pages >= MAX_UPDATE_PAGES) {
      logger.warn({ pages }, "background sweep read only the newest Komodo deploys: too many pages");
      break;
    }
    page = next_page;
  }
  return latest;
}

/**
 * Runs `sweep` after `delayMs`, then `intervalMs` after each round ends: rounds never overlap,
 * and `runNow` during a round joins it instead of starting another.
 */
export function scheduleSweeps({
  delayMs,
  intervalMs,
  sweep,
  logger,
}: {
  delayMs: number;
  intervalMs: number;
  sweep: (signal: AbortSignal) => Promise<void>;
  logger: Logger;
}) {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;

  function runNow(): Promise<void> {
    if (stopping.signal.aborted) return Promise.resolve();
    current ??= sweep(stopping.signal)
      .catch((error) => logger.error({ err: error }, "background sweep failed"))
      .finally(() => {
        current = undefined;
      });
    return current;
  }

  function after(ms: number) {
    timer = setTimeout(
      async () => {
        await runNow();
        if (!stopping.signal.aborted) after(intervalMs);
      },
      // setTimeout turns anything longer into 1 ms, which would sweep without pause.
      Math.min(ms, MAX_TIMER_MS),
    );
    timer.unref();
  }

  return {
    start: () => after(delayMs),
    runNow,
    /** No round starts after this; a round in progress writes nothing more. */
    stop() {
      stopping.abort();
      clearTimeout(timer);
    },
  };
}
