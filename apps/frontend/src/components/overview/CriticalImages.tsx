import { useImageScansQuery } from "../../lib/queries.ts";
import { useT, useTIsolated } from "../I18nProvider.tsx";
import type { ImageScan } from "../security/scan-model.ts";
import { SeverityBadges, securityHref } from "../stacks/Vulnerabilities.tsx";
import { Code } from "../ui/Code.tsx";
import { Spinner } from "../ui/Spinner.tsx";
import { OverviewPanel } from "./OverviewPanel.tsx";

const SHOWN_IMAGES = 6;

/** Images in use that have critical vulnerabilities, worst first; details on the Security page. */
export function CriticalImages({ className }: { className?: string }) {
  const t = useT();
  const query = useImageScansQuery();
  return (
    <OverviewPanel
      title={t("overview.critical.title")}
      allHref="/security"
      allLabel={t("overview.critical.all")}
      className={className}
      query={query}
      loadingLabel={t("overview.critical.loading")}
      errorTitle={t("overview.critical.loadFailed")}
      compact
    >
      {({ images }) => <CriticalImageList images={images} />}
    </OverviewPanel>
  );
}

function CriticalImageList({ images }: { images: readonly ImageScan[] }) {
  const t = useT();
  const tIsolated = useTIsolated();
  // The list comes worst first: critical count, then high.
  const critical = images.filter((image) => image.counts.critical > 0);
  const scanning = images.filter((image) => image.status === "queued" || image.status === "scanning").length;
  return (
    <>
      {critical.length === 0 ? (
        <p className="px-4 py-3 text-sm text-fg-muted">
          {images.length === 0
            ? t("overview.critical.noImages")
            : t("overview.critical.none", { count: images.length })}
        </p>
      ) : (
        <ul className="divide-y divide-line">
          {critical.slice(0, SHOWN_IMAGES).map((image) => (
            <li key={image.image} className="flex items-center gap-3 px-4 py-2">
              <div className="flex min-w-0 flex-1 flex-col gap-0.5">
                <a
                  href={securityHref(image.image)}
                  className="inline-flex min-w-0 max-w-full self-start hover:underline"
                  title={image.image}
                >
                  <Code value={image.image} truncate />
                </a>
                <span className="truncate text-xs text-fg-muted">
                  {tIsolated("overview.critical.usedBy", { stacks: image.stacks.join(", ") })}
                </span>
              </div>
              <span className="shrink-0">
                <SeverityBadges counts={image.counts} />
              </span>
            </li>
          ))}
        </ul>
      )}
      {(critical.length > SHOWN_IMAGES || scanning > 0) && (
        <p className="flex items-center gap-2 border-t border-line px-4 py-2 text-xs text-fg-muted">
          {scanning > 0 && <Spinner className="size-3 text-progress-text" />}
          {[
            critical.length > SHOWN_IMAGES &&
              t("overview.critical.more", { count: critical.length - SHOWN_IMAGES }),
            scanning > 0 && t("overview.critical.scanning", { count: scanning }),
          ]
            .filter(Boolean)
            .join(" · ")}
        </p>
      )}
    </>
  );
}
