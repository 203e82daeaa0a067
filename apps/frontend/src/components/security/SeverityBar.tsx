import { cx } from "../../lib/cx.ts";
import { type ImageScan, SEVERITIES, type Severity } from "./scan-model.ts";

const WIDTH = 80;

// Written out in full: Tailwind only generates the classes it finds in the source.
const fillClasses: Record<Severity, string> = {
  critical: "fill-critical",
  high: "fill-danger",
  medium: "fill-warning",
  low: "fill-neutral",
  unknown: "fill-neutral/60",
};

/**
 * The counts as one small stacked bar, worst first, each severity as wide as its share. Decorative:
 * the numbers beside it carry the meaning. An image without findings shows an empty grey track.
 */
export function SeverityBar({ counts, wide = false }: { counts: ImageScan["counts"]; wide?: boolean }) {
  const total = SEVERITIES.reduce((sum, severity) => sum + counts[severity], 0);
  let x = 0;
  return (
    <span
      aria-hidden="true"
      className={cx(
        "block h-2 shrink-0 overflow-hidden rounded-full bg-surface-muted",
        wide ? "w-32" : "w-16",
      )}
    >
      <svg
        viewBox={`0 0 ${WIDTH} 8`}
        preserveAspectRatio="none"
        aria-hidden="true"
        className="block size-full"
      >
        {total > 0 &&
          SEVERITIES.map((severity) => {
            const width = (counts[severity] / total) * WIDTH;
            const segment = (
              <rect key={severity} x={x} y={0} width={width} height={8} className={fillClasses[severity]} />
            );
            x += width;
            return segment;
          })}
      </svg>
    </span>
  );
}
