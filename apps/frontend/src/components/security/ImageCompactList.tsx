import { useT } from "../I18nProvider.tsx";
import { RelativeTime } from "../ui/index.ts";
import { ImageRef, RescanButton } from "./ImageCells.tsx";
import { ScanState } from "./ScanState.tsx";
import { SeverityBar } from "./SeverityBar.tsx";
import { EarlierScanNote, SeverityCount } from "./SeverityCounts.tsx";
import { StackLinks } from "./StackLinks.tsx";
import { type ImageScan, SEVERITIES } from "./scan-model.ts";
import type { useScanRequest } from "./useScanRequest.ts";

interface ImageCompactListProps {
  images: ImageScan[];
  now: number;
  request: ReturnType<typeof useScanRequest>;
}

/** The images on narrow screens: a short block each, the counts that matter beside the bar. */
export function ImageCompactList({ images, now, request }: ImageCompactListProps) {
  const t = useT();
  return (
    <ul
      aria-label={t("security.tableLabel")}
      className="overflow-hidden rounded-lg border border-line bg-surface"
    >
      {images.map((image) => (
        <li
          key={image.image}
          className="flex flex-col gap-1.5 border-b border-line px-3 py-2.5 last:border-b-0"
        >
          <ImageRef image={image.image} />
          <div className="flex min-w-0 items-center justify-between gap-3">
            <span className="min-w-0">
              <ScanState scan={image} />
            </span>
            <RescanButton scan={image} request={request} />
          </div>
          {image.scannedAt && (
            <div className="flex flex-wrap items-center gap-2">
              <SeverityBar counts={image.counts} />
              {SEVERITIES.some((severity) => image.counts[severity] > 0) ? (
                SEVERITIES.filter((severity) => image.counts[severity] > 0).map((severity) => (
                  <SeverityCount key={severity} severity={severity} count={image.counts[severity]} labelled />
                ))
              ) : (
                <span className="text-xs text-success-text">{t("security.vulns.none")}</span>
              )}
            </div>
          )}
          <EarlierScanNote scan={image} />
          <p className="flex min-w-0 gap-1 text-xs text-fg-muted">
            <span className="shrink-0">{t("security.col.stacks")}:</span>
            <StackLinks stacks={image.stacks} />
            <span aria-hidden="true" className="shrink-0">
              ·
            </span>
            <span className="shrink-0">
              {image.scannedAt ? <RelativeTime date={image.scannedAt} now={now} /> : t("security.never")}
            </span>
          </p>
        </li>
      ))}
    </ul>
  );
}
