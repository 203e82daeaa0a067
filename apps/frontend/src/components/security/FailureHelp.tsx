import type { PlainMessageKey } from "../../lib/i18n.ts";
import { useT } from "../I18nProvider.tsx";
import { useKeyboardScrollable } from "../ui/useKeyboardScrollable.ts";
import type { ImageScan, ScanErrorKind } from "./scan-model.ts";

const nextStep: Record<Exclude<ScanErrorKind, "other">, PlainMessageKey> = {
  unauthorized: "security.fix.unauthorized",
  "not-found": "security.fix.notFound",
  unavailable: "security.fix.unavailable",
  timeout: "security.fix.timeout",
};

/** For a failed scan: what to do about it, and the scanner's own words for whoever digs deeper. */
export function FailureHelp({ scan }: { scan: ImageScan }) {
  const t = useT();
  const scrollable = useKeyboardScrollable<HTMLPreElement>(t("security.detail.scannerOutput"));
  if (scan.status !== "failed") return null;
  return (
    <div className="flex flex-col gap-2 text-sm">
      {scan.errorKind && scan.errorKind !== "other" && (
        <p className="text-fg-muted">{t(nextStep[scan.errorKind])}</p>
      )}
      {scan.error && (
        <details className="group">
          <summary className="cursor-pointer text-fg-muted hover:text-fg">
            {t("security.detail.scannerOutput")}
          </summary>
          <pre
            ref={scrollable.ref}
            {...scrollable.props}
            className="mt-2 max-h-60 overflow-auto whitespace-pre-wrap break-words rounded-md bg-surface-muted p-3 font-mono text-xs"
          >
            <bdi>{scan.error}</bdi>
          </pre>
        </details>
      )}
    </div>
  );
}
