import { useCan } from "../../lib/permissions.ts";
import { useImageScanQuery } from "../../lib/queries.ts";
import { useT } from "../I18nProvider.tsx";
import {
  ArrowLeftIcon,
  Button,
  buttonClasses,
  Card,
  CopyButton,
  EmptyState,
  errorMessage,
  errorStatus,
  QueryView,
  RelativeTime,
  ScanIcon,
} from "../ui/index.ts";
import { FailureHelp } from "./FailureHelp.tsx";
import { ScanState } from "./ScanState.tsx";
import { SeverityBar } from "./SeverityBar.tsx";
import { EarlierScanNote, SeverityBadges } from "./SeverityCounts.tsx";
import { StackLinks } from "./StackLinks.tsx";
import { type ImageScanDetail, isInProgress } from "./scan-model.ts";
import { useScanRequest } from "./useScanRequest.ts";
import { VulnerabilityList } from "./VulnerabilityList.tsx";

/** Security › one image: its latest scan and every vulnerability found. */
export function ImageDetail({ image }: { image: string }) {
  const t = useT();
  const query = useImageScanQuery(image);
  const status = errorStatus(query.error);

  return (
    <div className="flex flex-col gap-4">
      <a
        href="/security"
        className="inline-flex items-center gap-1.5 self-start text-sm text-fg-muted hover:text-fg"
      >
        <ArrowLeftIcon />
        {t("security.detail.back")}
      </a>
      {query.data === undefined && (status === 404 || status === 400) ? (
        <EmptyState
          title={t("security.detail.notFound")}
          description={
            <>
              <code className="break-all font-mono text-fg">
                <bdi>{image}</bdi>
              </code>
              <span className="mt-1 block">
                {status === 404 ? t("security.detail.notFoundHint") : errorMessage(query.error)}
              </span>
            </>
          }
          action={
            <a href="/security" className={buttonClasses("primary")}>
              {t("security.detail.back")}
            </a>
          }
        />
      ) : (
        <QueryView
          query={query}
          errorTitle={t("security.detail.loadFailed")}
          noConnectionHint={t("security.noConnectionHint")}
        >
          {(detail) => <DetailBody detail={detail} />}
        </QueryView>
      )}
    </div>
  );
}

function DetailBody({ detail }: { detail: ImageScanDetail }) {
  const t = useT();
  const scan = useScanRequest();
  const canScan = useCan("scan");
  const hasResult = detail.scannedAt !== null;
  return (
    <>
      <Card
        title={
          <span className="flex min-w-0 items-center gap-1">
            <span className="min-w-0 break-all font-mono">
              <bdi>{detail.image}</bdi>
            </span>
            <CopyButton value={detail.image} label={t("security.copyImage", { image: detail.image })} />
          </span>
        }
        actions={
          canScan && (
            <Button
              icon={<ScanIcon />}
              loading={scan.isPending}
              disabled={isInProgress(detail)}
              onClick={() => scan.mutate([detail.image])}
            >
              {t("security.rescan")}
            </Button>
          )
        }
      >
        <dl className="grid grid-cols-[auto_minmax(0,1fr)] items-baseline gap-x-6 gap-y-3">
          <dt className="text-fg-muted">{t("security.col.status")}</dt>
          <dd className="flex min-w-0 flex-col gap-2">
            <ScanState scan={detail} wrap />
            <FailureHelp scan={detail} />
          </dd>
          <dt className="text-fg-muted">{t("security.col.scanned")}</dt>
          <dd>{detail.scannedAt ? <RelativeTime date={detail.scannedAt} /> : t("security.never")}</dd>
          <dt className="text-fg-muted">{t("security.col.stacks")}</dt>
          <dd className="min-w-0">
            {detail.stacks.length > 0 ? <StackLinks stacks={detail.stacks} /> : t("security.detail.noStacks")}
          </dd>
          {hasResult && (
            <>
              <dt className="text-fg-muted">{t("security.detail.findings")}</dt>
              <dd className="flex flex-col gap-1.5">
                <span className="flex flex-wrap items-center gap-3">
                  <SeverityBar counts={detail.counts} wide />
                  <SeverityBadges counts={detail.counts} />
                </span>
                <EarlierScanNote scan={detail} />
              </dd>
            </>
          )}
        </dl>
      </Card>
      <VulnerabilityList detail={detail} />
    </>
  );
}
