import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { orpc } from "../../lib/api.ts";
import { useDeployEvents, useRunningDeploys } from "../../lib/deploy-events.ts";
import { useT } from "../I18nProvider.tsx";
import { HistoryIcon } from "../icons.tsx";
import {
  Button,
  buttonClasses,
  EmptyState,
  QueryView,
  retryWithoutAnswer,
  Spinner,
  useMediaQuery,
  useNow,
} from "../ui/index.ts";
import {
  type FinishedRun,
  type HistoryEntry,
  type HistoryFilters,
  isFiltered,
  matchesResult,
  matchesScope,
  NO_FILTERS,
  showFiltersInAddress,
  withJustFinished,
} from "./filters.ts";
import { HistoryCompactList } from "./HistoryCompactList.tsx";
import { HistoryFilterBar } from "./HistoryFilterBar.tsx";
import { HistoryTable } from "./HistoryTable.tsx";
import { type HistoryRow, historyRows } from "./rows.ts";

export function HistoryView({ initialFilters }: { initialFilters: HistoryFilters }) {
  const t = useT();
  const queryClient = useQueryClient();
  const query = useQuery({ ...orpc.history.list.queryOptions(), retry: retryWithoutAnswer });
  const [justFinished, setJustFinished] = useState<FinishedRun[]>([]);

  // A finished deploy, from anyone, is a new history entry: fetch the list again, quietly.
  useDeployEvents((event) => {
    if (event.type !== "finished") return;
    const { run } = event;
    setJustFinished((runs) => [...runs, run]);
    void queryClient
      .invalidateQueries({ queryKey: orpc.history.list.key() })
      .finally(() => setJustFinished((runs) => runs.filter((other) => other.id !== run.id)));
  });

  return (
    <QueryView query={query} errorTitle={t("history.loadFailed")}>
      {({ history }) => (
        <FilteredHistory
          entries={withJustFinished(history, justFinished)}
          initialFilters={initialFilters}
          refreshing={query.isFetching}
        />
      )}
    </QueryView>
  );
}

interface FilteredHistoryProps {
  entries: HistoryEntry[];
  initialFilters: HistoryFilters;
  refreshing: boolean;
}

function FilteredHistory({ entries, initialFilters, refreshing }: FilteredHistoryProps) {
  const t = useT();
  const [filters, setFilters] = useState(initialFilters);
  const { running } = useRunningDeploys();

  const changeFilters = (next: HistoryFilters) => {
    setFilters(next);
    showFiltersInAddress(next);
  };

  if (entries.length === 0 && running.length === 0) {
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

  const inScope = entries.filter((entry) => matchesScope(entry, filters));
  const shown = inScope.filter((entry) => matchesResult(entry, filters.result));
  const runningShown =
    filters.result === "all"
      ? running.filter((run) => matchesScope({ ...run, actor: run.actorName }, filters))
      : [];

  return (
    <div className="flex flex-col gap-3">
      <HistoryFilterBar entries={entries} inScope={inScope} filters={filters} onChange={changeFilters} />
      <p className="flex h-4 items-center gap-2 text-xs text-fg-muted">
        {t("history.showing", { shown: shown.length, total: entries.length })}
        {/* Background refreshes only get this small mark: the rows stay where they are. */}
        {refreshing && <Spinner className="size-3" />}
      </p>
      {shown.length === 0 && runningShown.length === 0 ? (
        <EmptyState
          title={t("history.noMatch")}
          description={t("history.noMatchHint")}
          action={
            isFiltered(filters) && (
              <Button onClick={() => changeFilters(NO_FILTERS)}>{t("history.clearFilters")}</Button>
            )
          }
        />
      ) : (
        <HistoryRows rows={historyRows(shown, runningShown)} />
      )}
    </div>
  );
}

/** A table where there is room for one, a compact list on phones; both tick while a deploy runs. */
function HistoryRows({ rows }: { rows: HistoryRow[] }) {
  const wide = useMediaQuery("(min-width: 640px)", true);
  const now = useNow(rows.some((row) => row.success === undefined) ? 1_000 : 30_000);
  return wide ? <HistoryTable rows={rows} now={now} /> : <HistoryCompactList rows={rows} now={now} />;
}
