import { useCan } from "../../lib/permissions.ts";
import { useImageScansQuery } from "../../lib/queries.ts";
import { useT } from "../I18nProvider.tsx";
import { SecurityIcon } from "../icons.tsx";
import { Button, EmptyState, QueryView, ScanIcon, Spinner, TableOrList, useNow } from "../ui/index.ts";
import { ImageCompactList } from "./ImageCompactList.tsx";
import { ImageTable } from "./ImageTable.tsx";
import { ScannerDown } from "./ScannerDown.tsx";
import { type ImageScan, isInProgress } from "./scan-model.ts";
import { useScanRequest } from "./useScanRequest.ts";

/** Security: every image the stacks use, worst first, polling quietly while scans are under way. */
export function ImageList() {
  const t = useT();
  const query = useImageScansQuery();
  return (
    <QueryView
      query={query}
      errorTitle={t("security.loadFailed")}
      noConnectionHint={t("security.noConnectionHint")}
    >
      {({ images, scanner }) =>
        images.length === 0 ? (
          <EmptyState
            icon={<SecurityIcon className="size-6" />}
            title={t("security.noImages")}
            description={t("security.noImagesHint")}
          />
        ) : (
          <div className="flex flex-col gap-3">
            <ScannerDown scanner={scanner} />
            <ListToolbar images={images} refreshing={query.isFetching} />
            <ImageRows images={images} />
          </div>
        )
      }
    </QueryView>
  );
}

function ListToolbar({ images, refreshing }: { images: ImageScan[]; refreshing: boolean }) {
  const t = useT();
  const scan = useScanRequest();
  const canScan = useCan("scan");
  const scanAll = scan.isPending && scan.variables === undefined;
  const withCritical = images.filter((image) => image.counts.critical > 0).length;
  const failed = images.filter((image) => image.status === "failed").length;
  const inProgress = images.filter(isInProgress).length;

  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-fg-muted">
        <span>{t("security.summary.images", { count: images.length })}</span>
        {withCritical > 0 && (
          <span className="font-medium text-critical-text">
            {t("security.summary.critical", { count: withCritical })}
          </span>
        )}
        {failed > 0 && (
          <span className="font-medium text-danger-text">
            {t("security.summary.failed", { count: failed })}
          </span>
        )}
        {inProgress > 0 && (
          <span className="inline-flex items-center gap-1.5 font-medium text-progress-text">
            <Spinner className="size-3" />
            {t("security.summary.inProgress", { count: inProgress })}
          </span>
        )}
        {refreshing && inProgress === 0 && <Spinner className="size-3" />}
      </p>
      {canScan && (
        <Button
          variant="primary"
          icon={<ScanIcon />}
          loading={scanAll}
          onClick={() => scan.mutate(undefined)}
        >
          {t("security.scanAll")}
        </Button>
      )}
    </div>
  );
}

/** A table where there is room for one, a compact list on phones. */
function ImageRows({ images }: { images: ImageScan[] }) {
  const now = useNow(30_000);
  const request = useScanRequest();
  const rowsProps = { images, now, request };
  return (
    <TableOrList from="sm" table={<ImageTable {...rowsProps} />} list={<ImageCompactList {...rowsProps} />} />
  );
}
