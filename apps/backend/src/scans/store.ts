import { eq, getTableColumns, inArray, sql } from "drizzle-orm";
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
  return {
    /** Every stored image's record, without vulnerabilities. */
    summaries(): Map<string, ScanSummary> {
      const rows = db.select(summaryColumns).from(imageScan).all();
      return new Map(rows.map((row) => [row.image, row]));
    },

    record(image: string): ScanRecord | undefined {
      return db.select().from(imageScan).where(eq(imageScan.image, image)).get();
    },

    /** Queued, keeping whatever result the images already have. */
    markQueued(images: readonly string[], requestedAt: Date) {
      db.transaction((tx) => {
        for (let start = 0; start < images.length; start += ROWS_PER_INSERT) {
          const rows = images
            .slice(start, start + ROWS_PER_INSERT)
            .map((image) => ({ image, status: "queued" as const, requestedAt }));
          tx.insert(imageScan)
            .values(rows)
            .onConflictDoUpdate({
              target: imageScan.image,
              set: { status: sql`excluded.status`, requestedAt: sql`excluded.requested_at` },
            })
            .run();
        }
      });
    },

    /** Returns the previous attempt's time, for `returnToQueue`. */
    markScanning(image: string, attemptedAt: Date): Date | null {
      return db.transaction((tx) => {
        const previous = tx
          .select({ attemptedAt: imageScan.attemptedAt })
          .from(imageScan)
          .where(eq(imageScan.image, image))
          .get();
        tx.update(imageScan).set({ status: "scanning", attemptedAt }).where(eq(imageScan.image, image)).run();
        return previous?.attemptedAt ?? null;
      });
    },

    /** Back to waiting, as before `markScanning`: the scanner could not be used, so nothing was attempted. */
    returnToQueue(image: string, attemptedAt: Date | null) {
      db.update(imageScan).set({ status: "queued", attemptedAt }).where(eq(imageScan.image, image)).run();
    },

    markDone(image: string, report: TrivyReportSummary, scannedAt: Date) {
      db.update(imageScan)
        .set({
          status: "done",
          ...report.counts,
          fixable: report.fixable,
          vulnerabilities: report.vulnerabilities,
          scannedAt,
          errorKind: null,
          error: null,
        })
        .where(eq(imageScan.image, image))
        .run();
    },

    /** Counts, vulnerabilities and scannedAt stay those of the last successful scan (zero without one). */
    markFailed(image: string, errorKind: TrivyErrorKind, error: string) {
      db.update(imageScan)
        .set({ status: "failed", errorKind, error })
        .where(eq(imageScan.image, image))
        .run();
    },

    /** Scans that were waiting or running when the backend stopped; returns how many. */
    interruptUnfinished(): number {
      return db
        .update(imageScan)
        .set({ status: "interrupted" })
        .where(inArray(imageScan.status, ["queued", "scanning"]))
        .run().changes;
    },
  };
}

export type ScanStore = ReturnType<typeof createScanStore>;
