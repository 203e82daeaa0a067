import type { imageScan, imageScanDetail, vulnerability } from "@stackgate/contract";
import type { z } from "zod";
import type { PlainMessageKey } from "../../lib/i18n.ts";
import type { Tone } from "../ui/index.ts";

export type ImageScan = z.infer<typeof imageScan>;
export type ImageScanDetail = z.infer<typeof imageScanDetail>;
export type Vulnerability = z.infer<typeof vulnerability>;
export type Severity = Vulnerability["severity"];
export type ScanStatus = ImageScan["status"];
export type ScanErrorKind = NonNullable<ImageScan["errorKind"]>;

/** Worst first: the order of the bar's segments, the count columns and the default sort. */
export const SEVERITIES: readonly Severity[] = ["critical", "high", "medium", "low", "unknown"];

export const severityTone: Record<Severity, Tone> = {
  critical: "critical",
  high: "danger",
  medium: "warning",
  low: "neutral",
  unknown: "neutral",
};

export const severityLabel: Record<Severity, PlainMessageKey> = {
  critical: "security.severity.critical",
  high: "security.severity.high",
  medium: "security.severity.medium",
  low: "security.severity.low",
  unknown: "security.severity.unknown",
};

export const statusTone: Record<ScanStatus, Tone> = {
  queued: "progress",
  scanning: "progress",
  done: "success",
  failed: "danger",
  interrupted: "neutral",
};

export const statusLabel: Record<ScanStatus, PlainMessageKey> = {
  queued: "security.status.queued",
  scanning: "security.status.scanning",
  done: "security.status.done",
  failed: "security.status.failed",
  interrupted: "security.status.interrupted",
};

/** Why a scan failed, in the reader's words; `other` has none and shows the scanner's own text. */
export const failureReason: Record<Exclude<ScanErrorKind, "other">, PlainMessageKey> = {
  unauthorized: "security.reason.unauthorized",
  "not-found": "security.reason.notFound",
  unavailable: "security.reason.unavailable",
  timeout: "security.reason.timeout",
};

export const isInProgress = (scan: Pick<ImageScan, "status">) =>
  scan.status === "queued" || scan.status === "scanning";

/** The address of an image's detail view (the Stacks pages link here too). */
export const imageDetailHref = (image: string) => `/security?image=${encodeURIComponent(image)}`;

export const severityRank = (severity: Severity) => SEVERITIES.indexOf(severity);
