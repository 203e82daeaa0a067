import { byCodeUnits } from "../platform/compare.ts";
import type { ScanRecord, ScanSummary } from "./store.ts";
import { SEVERITIES } from "./trivy-report.ts";

/** An image's entry in the API: its stored record and the stacks using it now. */
export function presentScan(image: string, stacks: readonly string[], record: ScanSummary | undefined) {
  // No record only when the queue refused to take it (shutting down): shown as waiting for its first scan.
  const { status, critical, high, medium, low, unknown, fixable, requestedAt, attemptedAt, scannedAt } =
    record ?? emptyRecord;
  return {
    image,
    stacks: [...stacks].sort(),
    status,
    counts: { critical, high, medium, low, unknown },
    fixable,
    requestedAt,
    attemptedAt,
    scannedAt,
    ...(status === "failed" && record?.errorKind
      ? { errorKind: record.errorKind, error: record.error ?? "" }
      : {}),
  };
}

export type ImageScanEntry = ReturnType<typeof presentScan>;

export function presentScanDetail(image: string, stacks: readonly string[], record: ScanRecord | undefined) {
  return { ...presentScan(image, stacks, record), vulnerabilities: record?.vulnerabilities ?? [] };
}

const emptyRecord: Omit<ScanSummary, "image"> = {
  status: "queued",
  critical: 0,
  high: 0,
  medium: 0,
  low: 0,
  unknown: 0,
  fixable: 0,
  requestedAt: null,
  attemptedAt: null,
  scannedAt: null,
  errorKind: null,
  error: null,
};

/**
 * Worst first: more critical, then high, medium, low and unknown findings. Among equal counts an
 * image whose last scan failed comes first (it needs attention), then one with no result yet
 * (its risk is unknown), then the rest; finally by name.
 */
export function worstFirst(a: ImageScanEntry, b: ImageScanEntry): number {
  for (const severity of SEVERITIES) {
    const difference = b.counts[severity] - a.counts[severity];
    if (difference !== 0) return difference;
  }
  return attentionRank(a) - attentionRank(b) || byCodeUnits(a.image, b.image);
}

function attentionRank(entry: ImageScanEntry): number {
  if (entry.status === "failed") return 0;
  if (entry.scannedAt === null) return 1;
  return 2;
}
