import { formatDateAndTime } from "../../lib/intl.ts";
import { useI18n, useT } from "../I18nProvider.tsx";
import { Badge } from "../ui/index.ts";
import { useFailureReason } from "./ScanState.tsx";
import { type ImageScan, SEVERITIES, type Severity, severityLabel, severityTone } from "./scan-model.ts";

interface SeverityCountProps {
  severity: Severity;
  count: number;
  /** Shows the severity's word beside the number (where no column header says it). */
  labelled?: boolean;
  /** What is counted, when it is more than the one severity (e.g. low and unknown together). */
  word?: string;
}

/** One count, coloured by its severity when there is something to count, always with its word for readers. */
export function SeverityCount({ severity, count, labelled = false, word: counted }: SeverityCountProps) {
  const t = useT();
  const word = counted ?? t(severityLabel[severity]);
  const wordInText = labelled ? ` ${word}` : <span className="sr-only"> {word}</span>;
  if (count === 0) {
    return (
      <span className="tabular-nums text-fg-muted" title={`0 ${word}`}>
        0{wordInText}
      </span>
    );
  }
  return (
    <span title={`${count} ${word}`}>
      <Badge tone={severityTone[severity]}>
        {count}
        {wordInText}
      </Badge>
    </span>
  );
}

/** Every severity with its word: for the detail view, where there is room. */
export function SeverityBadges({ counts }: { counts: ImageScan["counts"] }) {
  return (
    <ul className="flex flex-wrap gap-1.5">
      {SEVERITIES.map((severity) => (
        <li key={severity}>
          <SeverityCount severity={severity} count={counts[severity]} labelled />
        </li>
      ))}
    </ul>
  );
}

/**
 * Beside counts kept from an earlier scan because the latest one failed (a registry that refuses the
 * scanner now, say): which scan they are from. `short` for a table row: a word (the table has no room
 * for more at 1280 px in Spanish), the sentence for readers, and with the failure's reason on hover.
 * Nothing for any other scan.
 */
export function EarlierScanNote({ scan, short = false }: { scan: ImageScan; short?: boolean }) {
  const { t, lang } = useI18n();
  const reason = useFailureReason();
  if (scan.status !== "failed" || !scan.scannedAt) return null;
  const when = formatDateAndTime(lang, scan.scannedAt);
  const sentence = t("security.earlier.note", { when });
  if (!short) return <p className="text-xs text-fg-muted">{sentence}</p>;
  return (
    <span
      title={`${sentence} ${reason(scan)}`}
      className="shrink-0 text-xs text-fg-muted underline decoration-dotted underline-offset-2"
    >
      <span aria-hidden="true">{t("security.earlier.short")}</span>
      <span className="sr-only">{sentence}</span>
    </span>
  );
}
