import { useT } from "../I18nProvider.tsx";
import { RelativeTime, Table, TableBody, TableContainer, TableHead, Td, Th, Tr } from "../ui/index.ts";
import { ImageRef, RescanButton } from "./ImageCells.tsx";
import { ScanState } from "./ScanState.tsx";
import { SeverityBar } from "./SeverityBar.tsx";
import { EarlierScanNote, SeverityCount } from "./SeverityCounts.tsx";
import { StackLinks } from "./StackLinks.tsx";
import { type ImageScan, type Severity, severityLabel } from "./scan-model.ts";
import type { useScanRequest } from "./useScanRequest.ts";

/**
 * Low and unknown share a column (both grey in the palette; unknown is rare) so the row keeps its
 * action in view at 1280 px. The bar and the detail view still tell them apart.
 */
const TABLE_SEVERITIES: Severity[] = ["critical", "high", "medium", "low"];
const tableCount = (counts: ImageScan["counts"], severity: Severity) =>
  severity === "low" ? counts.low + counts.unknown : counts[severity];

interface ImageTableProps {
  images: ImageScan[];
  now: number;
  request: ReturnType<typeof useScanRequest>;
}

/** The images on wider screens: one dense line each, a column per severity. */
export function ImageTable({ images, now, request }: ImageTableProps) {
  const t = useT();
  return (
    // relative: the words kept for screen readers (absolutely placed) stay inside the scrolling box.
    <TableContainer className="relative max-h-[calc(100dvh-15rem)]">
      <Table aria-label={t("security.tableLabel")}>
        <TableHead>
          <tr>
            <Th>{t("security.col.image")}</Th>
            <Th>{t("security.col.severity")}</Th>
            {TABLE_SEVERITIES.map((severity) => (
              <Th
                key={severity}
                numeric
                title={severity === "low" ? t("security.col.lowAndUnknown") : undefined}
              >
                {t(severityLabel[severity])}
              </Th>
            ))}
            <Th>{t("security.col.status")}</Th>
            <Th>{t("security.col.stacks")}</Th>
            <Th>{t("security.col.scanned")}</Th>
            <Th>
              <span className="sr-only">{t("security.col.actions")}</span>
            </Th>
          </tr>
        </TableHead>
        <TableBody>
          {images.map((image) => (
            <Tr key={image.image}>
              <Td className="max-w-56">
                <ImageRef image={image.image} />
              </Td>
              <Td>
                {image.scannedAt && (
                  <span className="flex items-center gap-1.5">
                    <SeverityBar counts={image.counts} />
                    <EarlierScanNote scan={image} short />
                  </span>
                )}
              </Td>
              {TABLE_SEVERITIES.map((severity) => (
                <Td key={severity} numeric>
                  {image.scannedAt ? (
                    <SeverityCount
                      severity={severity}
                      count={tableCount(image.counts, severity)}
                      word={severity === "low" ? t("security.col.lowAndUnknown") : undefined}
                    />
                  ) : (
                    <span className="text-fg-muted" title={t("security.notScannedYet")}>
                      –
                    </span>
                  )}
                </Td>
              ))}
              <Td>
                <ScanState scan={image} />
              </Td>
              <Td className="max-w-40">
                <StackLinks stacks={image.stacks} />
              </Td>
              <Td className="text-fg-muted">
                {image.scannedAt ? <RelativeTime date={image.scannedAt} now={now} /> : t("security.never")}
              </Td>
              <Td className="text-right">
                <RescanButton scan={image} request={request} />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
