import { useT } from "../I18nProvider.tsx";
import { Badge } from "../ui/index.ts";
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
