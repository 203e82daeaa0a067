import { useT } from "../I18nProvider.tsx";
import { StatusMark } from "../ui/index.ts";
import { failureReason, type ImageScan, statusLabel, statusTone } from "./scan-model.ts";

/** The reason a scan failed, in plain words; the scanner's own text is kept for the tooltip. */
export function useFailureReason() {
  const t = useT();
  return (scan: Pick<ImageScan, "errorKind" | "error">): string => {
    if (scan.errorKind && scan.errorKind !== "other") return t(failureReason[scan.errorKind]);
    return scan.error || t("security.reason.other");
  };
}

/** The scan's state as mark and word, and for a failure the reason beside it. */
export function ScanState({ scan, wrap = false }: { scan: ImageScan; wrap?: boolean }) {
  const t = useT();
  const reason = useFailureReason();
  return (
    <span className={wrap ? "flex flex-col gap-0.5" : "inline-flex max-w-80 items-baseline gap-2"}>
      <StatusMark tone={statusTone[scan.status]} label={t(statusLabel[scan.status])} />
      {scan.status === "failed" && (
        <span
          title={scan.error}
          className={wrap ? "break-words text-sm text-fg-muted" : "min-w-0 truncate text-xs text-fg-muted"}
        >
          {reason(scan)}
        </span>
      )}
    </span>
  );
}
