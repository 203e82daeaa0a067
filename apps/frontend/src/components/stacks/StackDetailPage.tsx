import {
  type InitialStacks,
  prefetchInBrowser,
  useRefreshOnDeployEvents,
  useScansByImage,
} from "../../lib/queries.ts";
import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { useT, useTIsolated } from "../I18nProvider.tsx";
import type { ImageScan } from "../security/scan-model.ts";
import { buttonClasses } from "../ui/Button.tsx";
import { Card } from "../ui/Card.tsx";
import { EmptyState } from "../ui/EmptyState.tsx";
import { RequestProblem } from "../ui/RequestProblem.tsx";
import { describeLoadError } from "../ui/request-message.ts";
import { Skeleton } from "../ui/Skeleton.tsx";
import { CiSnippets } from "./CiSnippets.tsx";
import { DeleteStack } from "./DeleteStack.tsx";
import { DeployButtons, useDeployFlow } from "./deploy.tsx";
import { type LiveRun, useLiveRuns, useToastOtherDeploys } from "./live-deploys.ts";
import { type StackRow, summarizeVulnerabilities } from "./model.ts";
import { PollForUpdates } from "./PollForUpdates.tsx";
import { RefreshProblem } from "./RefreshProblem.tsx";
import { StackHistory } from "./StackHistory.tsx";
import { StackServices } from "./StackServices.tsx";
import { StackState } from "./StackState.tsx";
import { UpdateMarker } from "./UpdateMarker.tsx";
import { useStackRow } from "./useStackRows.ts";
import { StackVulnerabilities } from "./Vulnerabilities.tsx";

prefetchInBrowser("scans");

export interface StackDetailPageProps extends IslandProps {
  name: string;
  userName: string;
  initialStacks: InitialStacks | null;
}

/** One stack (an island): state, services, actions, update checks, history, CI snippets, delete. */
export function StackDetailPage({ lang, role, ...props }: StackDetailPageProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <StackDetail {...props} />
    </AppProviders>
  );
}

function StackDetail({ name, userName, initialStacks }: Omit<StackDetailPageProps, keyof IslandProps>) {
  const t = useT();
  const tIsolated = useTIsolated();
  useRefreshOnDeployEvents();
  useToastOtherDeploys(userName);
  const { row, failed, stacksQuery } = useStackRow(initialStacks, name);
  const { scans, failed: scansFailed } = useScansByImage();
  const runs = useLiveRuns(userName);

  if (row === undefined) {
    if (failed) {
      return (
        <RequestProblem
          error={stacksQuery.error}
          title={t("stacks.detail.loadFailed", { stack: name })}
          onRetry={() => void stacksQuery.refetch()}
          retrying={stacksQuery.isFetching}
        />
      );
    }
    return <DetailSkeleton />;
  }
  if (!row) {
    return (
      <EmptyState
        title={tIsolated("stacks.detail.notFound.title", { stack: name })}
        description={t("stacks.detail.notFound.description")}
        action={
          <a className={buttonClasses("primary")} href="/stacks">
            {t("stacks.detail.back")}
          </a>
        }
      />
    );
  }

  return (
    <div className="flex flex-col gap-4">
      {failed && (
        <RefreshProblem
          message={t("stacks.load.refreshFailed", { reason: describeLoadError(stacksQuery.error, t) })}
          onRetry={() => void stacksQuery.refetch()}
        />
      )}
      <StackSummary row={row} run={runs.get(name)} scans={scans} scansUnavailable={scansFailed} />
      <div className="grid items-start gap-4 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <div className="flex min-w-0 flex-col gap-4">
          <StackServices stack={row.stack} scans={scans} scansUnavailable={scansFailed} />
          <StackHistory stack={name} />
          <CiSnippets stack={name} />
        </div>
        <div className="flex min-w-0 flex-col gap-4">
          <PollForUpdates stack={name} />
          <DeleteStack stack={row.stack} />
        </div>
      </div>
    </div>
  );
}

interface StackSummaryProps {
  row: StackRow;
  run: LiveRun | undefined;
  scans: Map<string, ImageScan>;
  scansUnavailable: boolean;
}

/** The stack at a glance, with its deploy actions. */
function StackSummary({ row, run, scans, scansUnavailable }: StackSummaryProps) {
  const t = useT();
  const { ask, dialog } = useDeployFlow();
  const { stack } = row;
  return (
    <Card>
      <div className="flex flex-wrap items-center justify-between gap-x-6 gap-y-3">
        <dl className="flex flex-wrap items-center gap-x-6 gap-y-2 text-sm">
          <Fact label={t("stacks.table.state")}>
            <StackState state={row.state} run={run} lastDeploy={row.lastDeploy} />
          </Fact>
          <Fact label={t("stacks.detail.status")}>
            <span className="font-mono text-xs">{stack.status ?? "—"}</span>
          </Fact>
          <Fact label={t("stacks.table.updates")}>
            {row.updates > 0 ? (
              <UpdateMarker count={row.updates} />
            ) : (
              <span className="text-fg-muted">{t("stacks.update.none")}</span>
            )}
          </Fact>
          <Fact label={t("stacks.table.vulnerabilities")}>
            <StackVulnerabilities
              summary={summarizeVulnerabilities(stack.images, scans)}
              unavailable={scansUnavailable}
            />
          </Fact>
        </dl>
        <DeployButtons stack={stack} onAsk={ask} busy={run !== undefined} className="flex flex-wrap gap-2" />
      </div>
      {dialog}
    </Card>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex flex-col gap-1">
      <dt className="text-xs text-fg-muted">{label}</dt>
      <dd className="flex min-h-5 items-center">{children}</dd>
    </div>
  );
}

function DetailSkeleton() {
  const t = useT();
  return (
    <div role="status" className="flex flex-col gap-4">
      <span className="sr-only">{t("stacks.detail.loading")}</span>
      <Skeleton className="h-20 w-full rounded-lg" />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <Skeleton className="h-48 rounded-lg" />
        <Skeleton className="h-48 rounded-lg" />
      </div>
    </div>
  );
}
