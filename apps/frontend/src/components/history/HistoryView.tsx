import { useMemo, useState } from "react";
import { type DeployRun, useDeployEvents, useRunningDeploys } from "../../lib/deploy-events.ts";
import { useHistoryPages, useRefreshOnDeployEvents } from "../../lib/queries.ts";
import { useT } from "../I18nProvider.tsx";
import { HistoryIcon } from "../icons.tsx";
import { Button, buttonClasses, EmptyState, QueryView, Spinner, TableOrList, useNow } from "../ui/index.ts";
import {
  apiFilters,
  type FinishedRun,
  type HistoryPageFilters,
  isFiltered,
  matchesFilters,
  NO_FILTERS,
  showFiltersInAddress,
  withJustFinished,
} from "./filters.ts";
import { HistoryCompactList } from "./HistoryCompactList.tsx";
import { HistoryFilterBar, useFilterChoices } from "./HistoryFilterBar.tsx";
import { HistoryTable } from "./HistoryTable.tsx";
import { LoadOlder } from "./LoadOlder.tsx";
import { type HistoryRow, historyRows } from "./rows.ts";

/** At most this many finished deploys wait here for the refetched history to hold them. */
const JUST_FINISHED_KEPT = 50;

/** Deploys that finished while the page was open, as the live events told them (and how they settled). */
function useJustFinished(): FinishedRun[] {
  const [runs, setRuns] = useState<FinishedRun[]>([]);
  useDeployEvents((event) => {
    if (event.type === "finished") setRuns((others) => [...others, event.run].slice(-JUST_FINISHED_KEPT));
    if (event.type === "settled")
      setRuns((others) => others.map((run) => (run.id === event.run.id ? event.run : run)));
  });
  return runs;
}

export function HistoryView({ initialFilters }: { initialFilters: HistoryPageFilters }) {
  const t = useT();
  // A finished deploy, from anyone, is a new history entry: every history query is fetched again.
  useRefreshOnDeployEvents();
  const [filters, setFilters] = useState(initialFilters);
  const pages = useHistoryPages(apiFilters(filters));
  const justFinished = useJustFinished();
  const { running } = useRunningDeploys();
  const entries = useMemo(() => pages.data?.pages.flatMap((page) => page.history), [pages.data]);
  const choices = useFilterChoices(entries, filters);

  const changeFilters = (next: HistoryPageFilters) => {
    setFilters(next);
    showFiltersInAddress(next);
  };

  return (
    <QueryView query={pages} errorTitle={t("history.loadFailed")}>
      {() => {
        const live = (run: DeployRun | FinishedRun) =>
          matchesFilters({ ...run, actor: run.actorName }, filters);
        const shown = withJustFinished(entries ?? [], justFinished.filter(live));
        const runningShown = filters.result === "all" ? running.filter(live) : [];
        const nothing = shown.length === 0 && runningShown.length === 0;
        // The rows of other filters, kept on screen while these load, say nothing about these.
        const loading = pages.isPlaceholderData;
        if (nothing && !loading && !isFiltered(filters)) return <NoDeploysYet />;
        return (
          <div className="flex flex-col gap-3">
            <HistoryFilterBar choices={choices} filters={filters} onChange={changeFilters} />
            <p aria-live="polite" className="flex h-4 items-center gap-2 text-xs text-fg-muted">
              {pages.hasNextPage
                ? t("history.showingNewest", { shown: shown.length })
                : t("history.showingAll", { shown: shown.length })}
              {/* Background refreshes only get this small mark: the rows stay where they are. */}
              {pages.isFetching && !pages.isFetchingNextPage && <Spinner className="size-3" />}
            </p>
            {nothing ? (
              !loading && (
                <EmptyState
                  title={t("history.noMatch")}
                  description={t("history.noMatchHint")}
                  action={
                    isFiltered(filters) && (
                      <Button onClick={() => changeFilters(NO_FILTERS)}>{t("history.clearFilters")}</Button>
                    )
                  }
                />
              )
            ) : (
              <HistoryRows rows={historyRows(shown, runningShown)} />
            )}
            <LoadOlder pages={pages} />
          </div>
        );
      }}
    </QueryView>
  );
}

function NoDeploysYet() {
  const t = useT();
  return (
    <EmptyState
      icon={<HistoryIcon className="size-6" />}
      title={t("history.empty")}
      description={t("history.emptyHint")}
      action={
        <a href="/stacks" className={buttonClasses("primary")}>
          {t("history.goToStacks")}
        </a>
      }
    />
  );
}

/** The rows as a table where there is room for one, as a compact list on phones; both tick while a deploy runs. */
function HistoryRows({ rows }: { rows: HistoryRow[] }) {
  const now = useNow(rows.some((row) => row.success === undefined) ? 1_000 : 30_000);
  return (
    <TableOrList
      from="sm"
      table={<HistoryTable rows={rows} now={now} />}
      list={<HistoryCompactList rows={rows} now={now} />}
    />
  );
}
