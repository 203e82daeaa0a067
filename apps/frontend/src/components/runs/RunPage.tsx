import type { deployRunStatus } from "@stackgate/contract";
import type { z } from "zod";
import { useRefreshOnDeployEvents } from "../../lib/queries.ts";
import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { useT } from "../I18nProvider.tsx";
import { HistoryIcon } from "../icons.tsx";
import { Actor } from "../stacks/Actor.tsx";
import { useToastOtherDeploys } from "../stacks/live-deploys.ts";
import { StatusMark } from "../ui/Badge.tsx";
import { buttonClasses } from "../ui/Button.tsx";
import { Card } from "../ui/Card.tsx";
import { Code } from "../ui/Code.tsx";
import { EmptyState } from "../ui/EmptyState.tsx";
import { RelativeTime } from "../ui/RelativeTime.tsx";
import { RequestProblem } from "../ui/RequestProblem.tsx";
import { errorStatus } from "../ui/request-error.ts";
import { Skeleton } from "../ui/Skeleton.tsx";
import { StackLink } from "../ui/StackLink.tsx";
import { formatDuration, useNow } from "../ui/useNow.ts";
import { useHydrated } from "../useHydrated.ts";
import { RunChanges } from "./RunChanges.tsx";
import { RunSettle } from "./RunSettle.tsx";
import { RunStages } from "./RunStages.tsx";
import { OUTCOME_TONES, outcomeOf } from "./run-model.ts";
import { useLiveRun } from "./useLiveRun.ts";

export type RunStatus = z.infer<typeof deployRunStatus>;

export interface RunPageProps extends IslandProps {
  id: string;
  userName: string;
}

/** One deploy run (an island): its outcome, what changed, whether it stayed up, and every step's output. */
export function RunPage({ lang, role, ...props }: RunPageProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <RunView {...props} />
    </AppProviders>
  );
}

function RunView({ id, userName }: Omit<RunPageProps, keyof IslandProps>) {
  const t = useT();
  const hydrated = useHydrated();
  useRefreshOnDeployEvents();
  useToastOtherDeploys(userName);
  const { run, logs } = useLiveRun(id);

  if (!hydrated || run.data === undefined) {
    if (hydrated && run.isError) {
      if (errorStatus(run.error) === 404) return <RunNotFound id={id} />;
      return (
        <RequestProblem
          error={run.error}
          title={t("runs.loadFailed")}
          onRetry={() => void run.refetch()}
          retrying={run.isFetching}
        />
      );
    }
    return <RunSkeleton />;
  }

  const current = run.data.run;
  return (
    <div className="flex flex-col gap-4">
      <RunSummary run={current} />
      <div className="grid items-start gap-4 lg:grid-cols-[minmax(0,1fr)_24rem]">
        <RunChanges run={current} />
        <RunSettle run={current} />
      </div>
      <RunStages run={current} logs={logs} />
    </div>
  );
}

/** The run at a glance: its outcome, stack, who started it, when and for how long, its id. */
function RunSummary({ run }: { run: RunStatus }) {
  const t = useT();
  const now = useNow(run.status === "running" ? 1_000 : 30_000);
  const outcome = outcomeOf(run.status === "finished" ? run : {});
  const took =
    run.status === "finished"
      ? run.finishedAt.getTime() - run.startedAt.getTime()
      : now - run.startedAt.getTime();
  return (
    <Card>
      <div className="flex flex-col gap-3">
        <dl className="flex flex-wrap items-start gap-x-8 gap-y-3 text-sm">
          <Fact label={t("runs.fact.result")}>
            <span className="flex flex-wrap items-center gap-x-2">
              <StatusMark tone={OUTCOME_TONES[outcome]} label={t(`runs.outcome.${outcome}`)} />
              {run.status === "running" && (
                <span className="text-xs text-fg-muted">{t(`runs.step.${run.step ?? "starting"}`)}</span>
              )}
            </span>
          </Fact>
          <Fact label={t("runs.fact.stack")}>
            <StackLink stack={run.stack} className="font-medium" />
          </Fact>
          <Fact label={t("runs.fact.by")}>
            <Actor name={run.actorName} via={run.via} />
          </Fact>
          <Fact label={t("runs.fact.started")}>
            <RelativeTime date={run.startedAt} now={Math.max(now, run.startedAt.getTime())} />
          </Fact>
          <Fact label={run.status === "running" ? t("runs.fact.running") : t("runs.fact.took")}>
            <span className="font-mono text-xs tabular-nums">{formatDuration(took)}</span>
          </Fact>
          <Fact label={t("runs.fact.id")}>
            <Code value={run.id} copyable copyLabel={t("runs.copyId")} />
          </Fact>
        </dl>
        {run.status === "finished" && !run.success && (
          <div className="rounded-md bg-danger-soft px-3 py-2 text-sm">
            <p className="text-xs font-medium text-fg-muted">{t("runs.whyFailed")}</p>
            <p className="mt-0.5 whitespace-pre-wrap break-words text-fg">
              <bdi>{run.message}</bdi>
            </p>
          </div>
        )}
      </div>
    </Card>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <dt className="text-xs text-fg-muted">{label}</dt>
      <dd className="flex min-h-5 min-w-0 items-center">{children}</dd>
    </div>
  );
}

function RunNotFound({ id }: { id: string }) {
  const t = useT();
  return (
    <EmptyState
      icon={<HistoryIcon className="size-6" />}
      title={t("runs.notFound.title", { id })}
      description={t("runs.notFound.description")}
      action={
        <a href="/history" className={buttonClasses("primary")}>
          {t("runs.notFound.action")}
        </a>
      }
    />
  );
}

function RunSkeleton() {
  const t = useT();
  return (
    <div role="status" className="flex flex-col gap-4">
      <span className="sr-only">{t("runs.loading")}</span>
      <Skeleton className="h-24 w-full rounded-lg" />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_24rem]">
        <Skeleton className="h-32 rounded-lg" />
        <Skeleton className="h-32 rounded-lg" />
      </div>
      <Skeleton className="h-48 w-full rounded-lg" />
    </div>
  );
}
