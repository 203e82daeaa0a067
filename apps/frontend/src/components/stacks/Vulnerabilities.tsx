import { cx } from "../../lib/cx.ts";
import { useT } from "../I18nProvider.tsx";
import type { ImageScan } from "../security/scan-model.ts";
import { Badge } from "../ui/Badge.tsx";
import { Spinner } from "../ui/Spinner.tsx";
import { isPendingScan, type VulnerabilitySummary } from "./model.ts";

/** The Security page's view of one image (built there; this query is the agreed link). */
export function securityHref(image: string): string {
  return `/security?image=${encodeURIComponent(image)}`;
}

type Severity = "critical" | "high" | "medium" | "low";
const SEVERITY_TONES = { critical: "critical", high: "danger", medium: "warning", low: "neutral" } as const;
const SEVERE = ["critical", "high"] as const;
const ALL_SEVERITIES = ["critical", "high", "medium", "low"] as const;

/** A badge per severity that has findings: colour and word ("3 critical"). */
export function SeverityBadges({
  counts,
  severities = SEVERE,
  wrap = false,
}: {
  counts: Record<Severity, number>;
  severities?: readonly Severity[];
  /** Lets the badges take a second line (detail tables); list rows stay one line high. */
  wrap?: boolean;
}) {
  const t = useT();
  return (
    <span className={cx("inline-flex items-center gap-1", wrap && "flex-wrap")}>
      {severities
        .filter((severity) => counts[severity] > 0)
        .map((severity) => (
          <Badge key={severity} tone={SEVERITY_TONES[severity]}>
            {counts[severity] === 1
              ? t(`stacks.vulns.${severity}.one`)
              : t(`stacks.vulns.${severity}`, { count: counts[severity] })}
          </Badge>
        ))}
    </span>
  );
}

function Quiet({ children, title }: { children: string; title?: string }) {
  return (
    <span className="text-xs text-fg-muted" title={title}>
      {children}
    </span>
  );
}

function Scanning() {
  const t = useT();
  return (
    <span className="inline-flex items-center gap-1 text-xs text-progress-text">
      <Spinner className="size-3" />
      {t("stacks.vulns.scanning")}
    </span>
  );
}

/** Critical and high findings of a whole stack (its distinct images), for the list row. */
export function StackVulnerabilities({
  summary,
  unavailable,
}: {
  summary: VulnerabilitySummary;
  /** The scan list could not be loaded. */
  unavailable: boolean;
}) {
  const t = useT();
  if (unavailable) return <Quiet title={t("stacks.vulns.unavailable")}>—</Quiet>;
  if (summary.critical > 0 || summary.high > 0) {
    return <SeverityBadges counts={{ ...summary, medium: 0, low: 0 }} />;
  }
  if (summary.pending > 0) return <Scanning />;
  if (!summary.scanned) return <Quiet>{t("stacks.vulns.notScanned")}</Quiet>;
  return <Quiet>{t("stacks.vulns.noneSevere")}</Quiet>;
}

/** One image's scan result: its counts (critical and high, or all with `allSeverities`), scanning, or why none. */
export function ImageVulnerabilities({
  scan,
  unavailable,
  allSeverities = false,
}: {
  scan: ImageScan | undefined;
  unavailable: boolean;
  allSeverities?: boolean;
}) {
  const t = useT();
  if (unavailable) return <Quiet title={t("stacks.vulns.unavailable")}>—</Quiet>;
  if (isPendingScan(scan)) return <Scanning />;
  if (!scan) return null;
  if (scan.scannedAt === null) {
    return <Quiet title={scan.error}>{t("stacks.vulns.scanFailed")}</Quiet>;
  }
  const severities = allSeverities ? ALL_SEVERITIES : SEVERE;
  if (severities.some((severity) => scan.counts[severity] > 0)) {
    return <SeverityBadges counts={scan.counts} severities={severities} wrap={allSeverities} />;
  }
  return <Quiet>{allSeverities ? t("stacks.vulns.none") : t("stacks.vulns.noneSevere")}</Quiet>;
}
