import { and, eq } from "drizzle-orm";
import type { ConnectionService } from "../connection/service.ts";
import type { Cluster } from "../db/cluster.ts";
import type { Database } from "../db/database.ts";
import { alertUpdateSeen } from "../db/schema.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/logger.ts";
import type { AlertEvent } from "./alert.ts";

/** The row that says the first look was taken (no stack or service is ever named ""). */
const BASELINE = { stack: "", service: "" };

/**
 * Komodo marks a stack's service `update_available` once its registry has a newer image than the one
 * running (after its poll for updates, by default daily). This reads the stack list every
 * `intervalMs` on the backend that leads, and alerts each service that newly shows an update: once per
 * image, across restarts (what was seen is stored), and not for what already showed at the very first
 * look, so that upgrading Stackgate or adding a channel does not flood it. While Komodo cannot be
 * reached nothing changes, so its outages alert nothing either.
 *
 * Limit: the stack list does not say which digest is newer. A second new image for the same tag,
 * with no deploy in between, leaves the service showing an update all along and is not alerted again.
 */
export function watchUpdates({
  db,
  clock,
  logger,
  connection,
  cluster,
  intervalMs,
  alert,
}: {
  db: Database;
  clock: Clock;
  logger: Logger;
  connection: ConnectionService;
  cluster: Cluster;
  intervalMs: number;
  alert: (event: AlertEvent) => Promise<void>;
}) {
  let checking: Promise<void> | undefined;

  async function look() {
    let stacks: Awaited<ReturnType<ReturnType<ConnectionService["requireClient"]>["listAllStacks"]>>;
    try {
      stacks = await connection.requireClient().listAllStacks();
    } catch {
      return;
    }
    const showing = new Map<string, { stack: string; service: string; image: string }>();
    for (const item of stacks)
      for (const { service, image, update_available } of item.info.services)
        if (update_available)
          showing.set(`${item.name}\u0000${service}`, { stack: item.name, service, image });

    const now = new Date(clock.now());
    const fresh = await db.transaction(async (tx) => {
      const seen = await tx.select().from(alertUpdateSeen);
      const firstLook = !seen.some((row) => row.stack === BASELINE.stack && row.service === BASELINE.service);
      const known = new Map(seen.map((row) => [`${row.stack}\u0000${row.service}`, row]));
      for (const row of seen) {
        if (row.stack === BASELINE.stack) continue;
        const now = showing.get(`${row.stack}\u0000${row.service}`);
        if (!now || now.image !== row.image)
          await tx
            .delete(alertUpdateSeen)
            .where(and(eq(alertUpdateSeen.stack, row.stack), eq(alertUpdateSeen.service, row.service)));
      }
      const added = [];
      for (const [key, service] of showing) {
        if (known.get(key)?.image === service.image) continue;
        const inserted = await tx
          .insert(alertUpdateSeen)
          .values({ ...service, seenAt: now })
          .onConflictDoNothing()
          .returning();
        added.push(...inserted);
      }
      if (firstLook) {
        await tx
          .insert(alertUpdateSeen)
          .values({ ...BASELINE, image: "", seenAt: now })
          .onConflictDoNothing();
        return [];
      }
      return added;
    });

    const byStack = Map.groupBy(fresh, (row) => row.stack);
    for (const [stack, rows] of byStack) {
      const services = rows.map(({ service, image }) => ({ service, image }));
      await alert({
        type: "update.available",
        id: `update.available:${stack}:${now.getTime()}:${services.map(({ service }) => service).join(",")}`,
        stack,
        services,
      });
    }
  }

  /** One look now, unless one is under way (then that one). */
  const check = () => {
    checking ??= look()
      .catch((error: unknown) => logger.warn({ err: error }, "image updates could not be checked"))
      .finally(() => {
        checking = undefined;
      });
    return checking;
  };

  const timer = setInterval(() => {
    if (cluster.leads()) void check();
  }, intervalMs);
  timer.unref();

  return {
    check,
    async close() {
      clearInterval(timer);
      await checking;
    },
  };
}
