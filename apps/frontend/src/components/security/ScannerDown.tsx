import type { scannerStatus } from "@stackgate/contract";
import type { z } from "zod";
import { useT } from "../I18nProvider.tsx";
import { Notice } from "../ui/index.ts";

export type ScannerStatus = z.infer<typeof scannerStatus>;

/**
 * Shown once above the images while the scanner cannot be used (Trivy missing, its server down):
 * the backend's reason carries the fix (what to install or set), in its own words.
 */
export function ScannerDown({ scanner }: { scanner: ScannerStatus | undefined }) {
  const t = useT();
  if (!scanner || scanner.available) return null;
  return (
    <Notice tone="warning" role="status" title={t("security.scannerDown.title")}>
      {scanner.reason && <p className="font-mono text-xs text-fg">{scanner.reason}</p>}
      <p className="mt-1">{t("security.scannerDown.hint")}</p>
    </Notice>
  );
}
