import { asc, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { imageScan } from "../db/schema.ts";
import type { TrivyReportSummary } from "./trivy-report.ts";
import type { TrivyErrorKind } from "./trivy-runner.ts";

export type ScanRecord = typeof imageScan.$inferSelect;
/** A record without its vulnerability list, which can run to megabytes. */
export type ScanSummary = Omit<ScanRecord, "vulnerabilities">;

const { vulnerabilities: _vulnerabilities, ...summaryColumns } = getTableColumns(imageScan);

// Three values a row; far below SQLite's limit of 32,766 variables a statement.
const ROWS_PER_INSERT = 500;

/**
 * The image_scan table: one row per image, holding the latest result. Every scan transition is
 * one statement (or one transaction), written before anything else can see the new state.
 */
export function createScanStore(db: Database) {
  const update = (image: string, values: Partial<ScanRecord>) =>
    db.transaction((tx) => tx.update(imageScan).set(values).where(eq(imageScan.image, image)));

  return {
    /** Every stored image's record, without vulnerabilities. */
    async summaries(): Promise<Map<string, ScanSummary>> {
      const rows = await db.select(summaryColumns).from(imageScan);
      return new Map(rows.map((row) => [row.image, row]));
    },

    async record(image: string): Promise<ScanRecord | undefined> {
      const [record] = await db.select().from(imageScan).where(eq(imageScan.image, image));
      return record;
    },

    /** Queued, keeping whatever result the images already have. */
    async markQueued(images: readonly string[], requestedAt: Date) {
      await db.transaction(async (tx) => {
        for (let start = 0; start < images.length; start += ROWS_PER_INSERT) {
          const rows = images
            .slice(start, start + ROWS_PER_INSERT)
            .map((image) => ({ image, status: "queued" as const, requestedAt }));
          await tx
            .insert(imageScan)
            .values(rows)
            .onConflictDoUpdate({
              target: imageScan.image,
              set: { status: sql`excluded.status`, requestedAt: sql`excluded.requested_at` },
            });
        }
      });
    },

    /** Returns the previous attempt's time, for `returnToQueue`. */
    markScanning(image: string, attemptedAt: Date): Promise<Date | null> {
      return db.transaction(async (tx) => {
        const [previous] = await tx
          .select({ attemptedAt: imageScan.attemptedAt })
          .from(imageScan)
          .where(eq(imageScan.image, image));
        await tx.update(imageScan).set({ status: "scanning", attemptedAt }).where(eq(imageScan.image, image));
        return previous?.attemptedAt ?? null;
      });
    },

    /** Back to waiting, as before `markScanning`: the scanner could not be used, so nothing was attempted. */
    async returnToQueue(image: string, attemptedAt: Date | null) {
      await update(image, { status: "queued", attemptedAt });
    },

    async markDone(image: string, report: TrivyReportSummary, scannedAt: Date) {
      await update(image, {
        status: "done",
        ...report.counts,
        fixable: report.fixable,
        vulnerabilities: report.vulnerabilities,
        scannedAt,
        errorKind: null,
        error: null,
      });
    },

    /** Counts, vulnerabilities and scannedAt stay those of the last successful scan (zero without one). */
    async markFailed(image: string, errorKind: TrivyErrorKind, error: string) {
      await update(image, { status: "failed", errorKind, error });
    },

    /** The images waiting or running (on another backend, or cut off), and those cut off by a stop, oldest request first. */
    async unfinished(): Promise<string[]> {
      const rows = await db
        .select({ image: imageScan.image })
        .from(imageScan)
        .where(inArray(imageScan.status, ["queued", "scanning", "interrupted"]))
        .orderBy(asc(imageScan.requestedAt));
      return rows.map((row) => row.image);
    },

    /** Scans that were waiting or running when the backend stopped; returns how many. */
    async interruptUnfinished(): Promise<number> {
      const interrupted = await db.transaction((tx) =>
        tx
          .update(imageScan)
          .set({ status: "interrupted" })
          .where(inArray(imageScan.status, ["queued", "scanning"]))
          .returning({ image: imageScan.image }),
      );
      return interrupted.length;
    },
  };
}

export type ScanStore = ReturnType<typeof createScanStore>;
