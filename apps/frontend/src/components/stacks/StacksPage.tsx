import { startTransition, useDeferredValue, useEffect, useMemo, useState } from "react";
import {
  type InitialStacks,
  prefetchInBrowser,
  useRefreshOnDeployEvents,
  useScansByImage,
} from "../../lib/queries.ts";
import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { useT, useTIsolated } from "../I18nProvider.tsx";
import { CheckIcon } from "../icons.tsx";
import { Button } from "../ui/Button.tsx";
import { EmptyState } from "../ui/EmptyState.tsx";
import { RequestProblem } from "../ui/RequestProblem.tsx";
import { describeLoadError } from "../ui/request-message.ts";
import { showToast } from "../ui/Toast.tsx";
import { BulkStacks, useBulkSelection } from "./bulk/BulkStacks.tsx";
import { useDeployFlow } from "./deploy.tsx";
import { useLiveRuns, useToastOtherDeploys } from "./live-deploys.ts";
import { countByFilter, matchesFilter, matchesSearch, type StackFilter } from "./model.ts";
import { RefreshProblem } from "./RefreshProblem.tsx";
import { StacksCompactList } from "./StacksCompactList.tsx";
import { StacksSkeleton } from "./StacksSkeleton.tsx";
import { StacksTable } from "./StacksTable.tsx";
import { StacksToolbar } from "./StacksToolbar.tsx";
import { useRowsInView } from "./useRowsInView.ts";
import { useStackRows } from "./useStackRows.ts";
import { useWideScreen } from "./useWideScreen.ts";

prefetchInBrowser("history", "scans");

export interface StacksPageProps extends IslandProps {
  /** The signed-in person, named on their own deploys until the live event arrives. */
  userName: string;
  initialSearch: string;
  initialFilter: StackFilter;
  /** A stack the detail page has just deleted: confirmed here, where the browser lands. */
  deleted: string | null;
  initialStacks: InitialStacks | null;
}

/** The Stacks page (an island): every stack, live, with search, filters and the deploy actions. */
export function StacksPage({ lang, role, ...props }: StacksPageProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <StacksView {...props} />
    </AppProviders>
  );
}

/** Keeps search and filter in the address, so a filtered view can be shared or reloaded. */
function useQueryInAddress(search: string, filter: StackFilter) {
  useEffect(() => {
    const url = new URL(window.location.href);
    if (search) url.searchParams.set("q", search);
    else url.searchParams.delete("q");
    if (filter !== "all") url.searchParams.set("filter", filter);
    else url.searchParams.delete("filter");
    url.searchParams.delete("deleted");
    if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url);
  }, [search, filter]);
}

function useDeletedToast(deleted: string | null) {
  const tIsolated = useTIsolated();
  useEffect(() => {
    if (deleted) showToast({ tone: "success", title: tIsolated("stacks.delete.done", { stack: deleted }) });
  }, [deleted, tIsolated]);
}

/** Undefined until a transition after `value` first arrives, then `value` as it is. */
function useFirstInTransition<Value>(value: Value | undefined): Value | undefined {
  const [ready, setReady] = useState(false);
  const arrived = value !== undefined;
  useEffect(() => {
    if (arrived && !ready) startTransition(() => setReady(true));
  }, [arrived, ready]);
  return ready ? value : undefined;
}

function StacksView({
  userName,
  initialSearch,
  initialFilter,
  deleted,
  initialStacks,
}: Omit<StacksPageProps, keyof IslandProps>) {
  const t = useT();
  useRefreshOnDeployEvents();
  useToastOtherDeploys(userName);
  useDeletedToast(deleted);
  const [search, setSearch] = useState(initialSearch);
  const [filter, setFilter] = useState(initialFilter);
  useQueryInAddress(search, filter);

  const { rows, failed, stacksQuery } = useStackRows(initialStacks);
  const { scans, failed: scansFailed, query: scansQuery } = useScansByImage();
  const runs = useLiveRuns(userName);
  const { ask, dialog } = useDeployFlow();

  const searched = useMemo(() => rows?.filter((row) => matchesSearch(row, search)), [rows, search]);
  const counts = useMemo(() => searched && countByFilter(searched), [searched]);
  const filtered = useMemo(() => searched?.filter((row) => matchesFilter(row, filter)), [searched, filter]);
  // The first rows after hydration, and each scan update marking them, render in a transition that
  // yields to the browser instead of one long task. Later searches and filters apply at once.
  const listed = useFirstInTransition(filtered);
  const listedScans = useDeferredValue(scans);
  const wide = useWideScreen();
  const { visible, more, markerRef } = useRowsInView(listed, wide === false ? "compact" : "table");
  const selection = useBulkSelection(rows);

  const clear = () => {
    setSearch("");
    setFilter("all");
  };

  let content: React.ReactNode;
  if (!rows) {
    content = failed ? (
      <RequestProblem
        error={stacksQuery.error}
        title={t("stacks.load.title")}
        onRetry={() => void stacksQuery.refetch()}
        retrying={stacksQuery.isFetching}
      />
    ) : (
      <StacksSkeleton />
    );
  } else if (!listed) {
    content = <StacksSkeleton />;
  } else if (rows.length === 0) {
    content = <EmptyState title={t("stacks.empty.title")} description={t("stacks.empty.description")} />;
  } else if ((!visible || visible.length === 0) && filter === "updates" && search.trim() === "") {
    // Nothing left to update (after "Update all", say): that is good news, not a search that missed.
    content = (
      <EmptyState
        icon={<CheckIcon className="size-6" />}
        title={t("stacks.upToDate.title")}
        description={t("stacks.upToDate.description")}
        action={<Button onClick={clear}>{t("stacks.upToDate.showAll")}</Button>}
      />
    );
  } else if (!visible || visible.length === 0) {
    content = (
      <EmptyState
        title={t("stacks.noMatch.title")}
        description={t("stacks.noMatch.description")}
        action={<Button onClick={clear}>{t("stacks.noMatch.clear")}</Button>}
      />
    );
  } else {
    const listProps = {
      rows: visible,
      runs,
      scans: listedScans,
      scansUnavailable: scansFailed,
      onAsk: ask,
      selected: selection.selected,
      onToggleSelect: selection.toggle,
      more,
      markerRef,
    };
    content = wide ? <StacksTable {...listProps} /> : <StacksCompactList {...listProps} />;
  }

  return (
    <div className="flex flex-col gap-3">
      <StacksToolbar
        search={search}
        onSearch={setSearch}
        filter={filter}
        onFilter={setFilter}
        counts={counts}
        refreshing={Boolean(rows) && stacksQuery.isFetching}
      />
      {rows && failed && (
        <RefreshProblem
          message={t("stacks.load.refreshFailed", { reason: describeLoadError(stacksQuery.error, t) })}
          onRetry={() => void stacksQuery.refetch()}
        />
      )}
      {rows && scansFailed && (
        <RefreshProblem
          message={t("stacks.vulns.loadFailed", { reason: describeLoadError(scansQuery.error, t) })}
          onRetry={() => void scansQuery.refetch()}
        />
      )}
      {/* Rendered by the server too (with nothing to select yet): the rows arriving move nothing. */}
      {rows?.length !== 0 && (
        <BulkStacks
          selection={selection}
          liveRuns={runs}
          shown={filtered ?? []}
          updatesFilter={filter === "updates"}
        />
      )}
      {content}
      {dialog}
    </div>
  );
}
