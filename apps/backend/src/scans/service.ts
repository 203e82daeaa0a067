import { type ConnectionService, NoConnectionError } from "../connection/service.ts";
import { type Cluster, singleBackend } from "../db/cluster.ts";
import type { Database } from "../db/database.ts";
import { EVERY_STACK, type StackVisibility } from "../identity/apikeys/scope.ts";
import type { Clock } from "../platform/clock.ts";
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/logger.ts";
import { type StackService, toStack } from "../stacks/service.ts";
import { UpstreamError } from "../upstream/komodo-client.ts";
import { createScanQueue, type Enqueued, type ScanFinished } from "./queue.ts";
import { presentScan, presentScanDetail, worstFirst } from "./records.ts";
import { createScanStore } from "./store.ts";
import {
  deployedAfterRequest,
  lastDeploysSince,
  needsFirstScan,
  planSweep,
  scheduleSweeps,
  stacksByImage,
} from "./sweep.ts";
import { runTrivyScan, scannerUnavailableReason } from "./trivy-runner.ts";

/** Answered 400: images no stack uses may not be scanned on request. */
export class ImagesNotInUseError extends Error {
  readonly images: string[];
  constructor(images: string[]) {
    super(`No stack uses ${images.join(", ")}; nothing was queued`);
    this.images = images;
  }
}

/** Answered 404. */
export class UnknownImageError extends Error {
  constructor(image: string) {
    super(`No stack uses ${image} and no scan of it is stored`);
  }
}

/** Which stacks a caller may see (a scoped API key); undefined: all. */

/** How long finished deploys are gathered before their stacks are looked up together. */
const DEPLOY_LOOKUP_GATHER_MS = 50;

export async function createScanService({
  db,
  clock,
  logger,
  connection,
  stacks,
  trivy,
  sweep,
  cluster = singleBackend,
  onFinished = () => {},
}: {
  /**
   * The other backends on the database. Only the one that leads sweeps (one round in total) and
   * scans (two at a time over all, never one image twice); the others store what they are asked to
   * scan as queued and tell it. A backend that starts to lead takes over what was left queued.
   */
  cluster?: Cluster;
  db: Database;
  clock: Clock;
  logger: Logger;
  connection: ConnectionService;
  stacks: StackService;
  trivy: Config["trivy"];
  sweep: Config["sweep"];
  /**
   * Called once per finished scan, after it is stored (alerts, metrics), with a lookup of the stacks
   * using the image. What it returns is awaited by `idle()`; it must not throw.
   */
  onFinished?: (finished: ScanFinished, stacksUsing: () => Promise<string[]>) => unknown;
}) {
  const store = createScanStore(db);
  const leads = cluster.leads;

  const followUps = new Set<Promise<unknown>>();
  const stacksUsing = (image: string) => async () => (await imagesInUse(EVERY_STACK)).get(image) ?? [];
  const queue = createScanQueue({
    store,
    clock,
    logger,
    onFinished(finished) {
      const followUp = Promise.resolve(onFinished(finished, stacksUsing(finished.image)));
      followUps.add(followUp);
      const forget = () => followUps.delete(followUp);
      followUp.then(forget, forget);
    },
    async scan(image, signal) {
      const result = await runTrivyScan(image, {
        bin: trivy.bin,
        serverUrl: trivy.serverUrl,
        timeoutMs: trivy.scanTimeoutMs,
        signal,
      });
      const reason = scannerUnavailableReason(result, trivy);
      return reason === undefined ? result : { ok: false, scannerUnavailable: reason };
    },
  });

  const QUEUED = "scans-queued";
  /** Queues on this backend when it leads; elsewhere stores the images as queued and tells the one that leads. */
  async function enqueue(images: Iterable<string>): Promise<Enqueued> {
    if (leads()) return queue.enqueue(images);
    const records = await store.summaries();
    const result: Enqueued = { queued: [], alreadyQueued: [] };
    for (const image of new Set(images)) {
      const status = records.get(image)?.status;
      (status === "queued" || status === "scanning" ? result.alreadyQueued : result.queued).push(image);
    }
    if (result.queued.length > 0) {
      await store.markQueued(result.queued, new Date(clock.now()));
      cluster.publish(QUEUED, result.queued);
    }
    return result;
  }
  cluster.subscribe(QUEUED, (images) => {
    if (!leads()) return;
    queue
      .enqueue(images as string[])
      .catch((error: unknown) =>
        logger.warn({ err: error }, "image scans another backend asked for could not be queued"),
      );
  });

  // At start, scans left queued or running by the last run (of this backend or of one that led and
  // is gone) are stored as interrupted: the next listing or sweep queues them again. Taking the lead
  // later means the backend that led is gone: its unfinished scans are queued here at once.
  let tookLead: Promise<void> = Promise.resolve();
  let starting = true;
  cluster.onLead(() => {
    tookLead = (starting ? interruptUnfinished() : takeOverUnfinished()).catch((error: unknown) =>
      logger.warn(
        { err: error },
        "the image scans the last leading backend left unfinished were not taken over",
      ),
    );
  });
  await tookLead;
  starting = false;

  async function interruptUnfinished() {
    const interrupted = await store.interruptUnfinished();
    if (interrupted > 0)
      logger.info({ interrupted }, "image scans cut off by the last stop will be queued again");
  }

  async function takeOverUnfinished() {
    const images = await store.unfinished();
    if (images.length === 0) return;
    logger.info(
      { images: images.length },
      "taking over the image scans the backend that led left unfinished",
    );
    await queue.enqueue(images);
  }

  /**
   * Image → names of the stacks using it, live from Komodo: only the stacks `visible` admits and
   * the images they use.
   */
  const imagesInUse = async (visible: StackVisibility) => {
    const usage = stacksByImage(await stacks.list(EVERY_STACK));
    if (!visible.patterns) return usage;
    const seen = new Map<string, string[]>();
    for (const [image, names] of usage) {
      const shown = names.filter(visible.admits);
      if (shown.length > 0) seen.set(image, shown);
    }
    return seen;
  };

  const queueFirstScans = async (images: Iterable<string>) => {
    const records = await store.summaries();
    await enqueue([...images].filter((image) => needsFirstScan(records.get(image))));
    queue.retryScanner();
  };

  async function sweepOnce(signal: AbortSignal) {
    if (!leads()) {
      logger.debug("background sweep left to the backend that leads");
      return;
    }
    try {
      const listed = await stacks.list(EVERY_STACK);
      if (signal.aborted) return;
      const plan = planSweep({
        images: stacksByImage(listed).keys(),
        records: await store.summaries(),
        now: clock.now(),
        rescanIntervalMs: sweep.rescanIntervalMs,
      });
      const deploys =
        plan.deploysSince === null
          ? new Map<string, number>()
          : await lastDeploysSince(connection.requireClient(), plan.deploysSince, logger);
      if (signal.aborted) return;
      // Read again: a request during the upstream calls may have queued some of these images.
      const deployed = deployedAfterRequest(listed, await store.summaries(), deploys);
      const { queued } = await enqueue([...plan.due, ...deployed]);
      queue.retryScanner();
      logger.info(
        { stacks: listed.length, due: plan.due.length, deployed: deployed.length, queued: queued.length },
        "background sweep done",
      );
    } catch (error) {
      if (error instanceof NoConnectionError) logger.debug("background sweep skipped: no Komodo connection");
      else if (error instanceof UpstreamError) logger.warn(`background sweep skipped: ${error.message}`);
      else throw error;
    }
  }

  const sweeps = scheduleSweeps({
    delayMs: sweep.delayMs,
    intervalMs: sweep.intervalMs,
    sweep: sweepOnce,
    logger,
  });

  const deployedStacks = new Set<string>();
  let pendingLookup: Promise<void> | undefined;
  async function lookUpDeployedStacks() {
    await new Promise((resolve) => setTimeout(resolve, DEPLOY_LOOKUP_GATHER_MS));
    const names = [...deployedStacks];
    deployedStacks.clear();
    pendingLookup = undefined;
    try {
      const items = await connection.requireClient().findStacks(names);
      await enqueue(items.flatMap((item) => toStack(item).images));
    } catch (error) {
      logger.warn(
        { err: error, stacks: names },
        "the deployed stacks' images could not be queued for scanning",
      );
    }
  }

  return {
    /** Every image a stack uses, worst first; queues those never scanned or interrupted. */
    async listImages(visible: StackVisibility) {
      const usage = await imagesInUse(visible);
      await queueFirstScans(usage.keys());
      const records = await store.summaries();
      return [...usage]
        .map(([image, names]) => presentScan(image, names, records.get(image)))
        .sort(worstFirst);
    },

    /** One image's record with its vulnerabilities; queued as by a listing when a stack uses it. */
    async imageDetail(image: string, visible: StackVisibility) {
      const usage = await imagesInUse(visible);
      const names = usage.get(image);
      if (names) await queueFirstScans([image]);
      // A scoped key sees only its stacks' images, not every stored scan.
      const record = visible.patterns && !names ? undefined : await store.record(image);
      if (!record && !names) throw new UnknownImageError(image);
      return presentScanDetail(image, names ?? [], record);
    },

    /** Queues the given images (all images in use when none are given); refuses any no stack uses. */
    async requestScans(images: readonly string[] | undefined, visible: StackVisibility) {
      const usage = await imagesInUse(visible);
      const unused = [...new Set(images)].filter((image) => !usage.has(image));
      if (unused.length > 0) throw new ImagesNotInUseError(unused);
      const enqueued = await enqueue(images ?? usage.keys());
      // Someone asked: the scanner may have been fixed just now.
      queue.retryScanner({ now: true });
      return enqueued;
    },

    /** Whether scans can run; when not, why and since when (set by the first scan that met it). */
    scannerStatus: () => queue.scannerStatus(),

    /**
     * After a successful deploy; never throws, as the deploy has already been answered.
     * Deploys that finish together share one stack lookup instead of one each.
     */
    queueStackImages(stackName: string): Promise<void> {
      deployedStacks.add(stackName);
      pendingLookup ??= lookUpDeployedStacks();
      return pendingLookup;
    },

    startSweeps: sweeps.start,
    /** One sweep round now (joins a round in progress). */
    sweepNow: sweeps.runNow,
    /** Resolves once no scan is waiting or running, and what finished scans set off has ended. */
    async idle() {
      await queue.idle();
      await Promise.allSettled([...followUps]);
    },

    /** How many scans wait and how many run right now. */
    queueSize: () => queue.size(),

    /** Each stored image's severity counts (those of its last successful scan). */
    vulnerabilityCounts: async () =>
      [...(await store.summaries())].map(
        ([image, { critical, high, medium, low, unknown }]) =>
          [image, { critical, high, medium, low, unknown }] as const,
      ),

    /** Stops the sweeps and the queue; waiting and running scans are stored as interrupted. */
    async close() {
      sweeps.stop();
      await queue.stop();
    },
  };
}

export type ScanService = Awaited<ReturnType<typeof createScanService>>;
