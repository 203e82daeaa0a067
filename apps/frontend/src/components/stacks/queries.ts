import { type QueryClient, type UseQueryResult, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useRef } from "react";
import { orpc } from "../../lib/api.ts";
import { useDeployEvents } from "../../lib/deploy-events.ts";
import { getQueryClient } from "../../lib/query-client.ts";
import { retryUpstreamRead, retryWithoutAnswer } from "../ui/request-error.ts";
import { useHydrated } from "../useHydrated.ts";
import { type ImageScan, lastDeployByStack, type StackRow, toStackRows } from "./model.ts";
import type { InitialStacks } from "./server-stacks.ts";

/** While scans are queued or running, ask again this often (quietly: the list stays on screen). */
const SCAN_POLL_MS = 5_000;

const stacksListOptions = () => orpc.stacks.list.queryOptions({ retry: retryUpstreamRead });
const historyListOptions = () => orpc.history.list.queryOptions({ retry: retryWithoutAnswer });
const historyOverviewOptions = () => orpc.history.overview.queryOptions({ retry: retryWithoutAnswer });
const imageScansOptions = () =>
  orpc.scans.images.queryOptions({
    retry: retryUpstreamRead,
    refetchInterval: (query) =>
      query.state.data?.images.some((scan) => scan.status === "queued" || scan.status === "scanning")
        ? SCAN_POLL_MS
        : false,
  });

const prefetchers = {
  history: (client: QueryClient) => client.prefetchQuery(historyListOptions()),
  historyOverview: (client: QueryClient) => client.prefetchQuery(historyOverviewOptions()),
  scans: (client: QueryClient) => client.prefetchQuery(imageScansOptions()),
};

/**
 * Starts a page's requests as soon as its island's code is loaded, in parallel with hydration rather
 * than after it. The stack list is not among them: it comes with the page (server-stacks.ts), and a
 * query that already exists would ignore that initial data.
 */
export function prefetchInBrowser(...which: (keyof typeof prefetchers)[]) {
  if (typeof window === "undefined") return;
  const client = getQueryClient();
  for (const name of which) void prefetchers[name](client);
}

/**
 * The server rendered every block as loading, so the hydration render must too, even when a prefetch
 * has already answered; the data shows in the render right after. Data the server rendered with (it
 * came with the page) is shown by both.
 */
function useHydrationSafe<Data>(
  query: UseQueryResult<Data>,
  { renderedByServer = false } = {},
): UseQueryResult<Data> {
  const hydrated = useHydrated();
  if (hydrated || renderedByServer) return query;
  return {
    ...query,
    data: undefined,
    error: null,
    status: "pending",
    fetchStatus: "fetching",
    isPending: true,
    isLoading: true,
    isFetching: true,
    isSuccess: false,
    isError: false,
    isLoadingError: false,
    isRefetchError: false,
  } as UseQueryResult<Data>;
}

/**
 * The stack list; `initial` (fetched by the server for this page) saves the first request. With
 * `renderedByServer`, the server renders with it too, so the page's content needs no script to show
 * (a stack's page: its content is the largest paint on a phone). The list pages leave it off: a long
 * list rendered by the server costs more to hydrate than it saves.
 */
export function useStacksQuery(initial?: InitialStacks | null, { renderedByServer = false } = {}) {
  const seed = initial
    ? { initialData: { stacks: initial.stacks }, initialDataUpdatedAt: initial.fetchedAt }
    : {};
  return useHydrationSafe(useQuery({ ...stacksListOptions(), ...seed }), {
    renderedByServer: renderedByServer && !!initial,
  });
}

export function useHistoryQuery() {
  return useHydrationSafe(useQuery(historyListOptions()));
}

export function useHistoryOverviewQuery() {
  return useHydrationSafe(useQuery(historyOverviewOptions()));
}

export function useImageScansQuery() {
  return useHydrationSafe(useQuery(imageScansOptions()));
}

/** The latest scan per image reference; empty while loading or when the scan list failed. */
export function useScansByImage(): {
  scans: Map<string, ImageScan>;
  query: ReturnType<typeof useImageScansQuery>;
} {
  const query = useImageScansQuery();
  const scans = useMemo(
    () => new Map((query.data?.images ?? []).map((scan) => [scan.image, scan])),
    [query.data],
  );
  return { scans, query };
}

/** The stacks as list rows (problems first), with failed last deploys once the history is in. */
export function useStackRows(
  initial?: InitialStacks | null,
  options: { renderedByServer?: boolean } = {},
): {
  rows: StackRow[] | undefined;
  stacksQuery: ReturnType<typeof useStacksQuery>;
} {
  const stacksQuery = useStacksQuery(initial, options);
  const historyQuery = useHistoryQuery();
  const history = historyQuery.data?.history;
  const rows = useMemo(
    () => stacksQuery.data && toStackRows(stacksQuery.data.stacks, lastDeployByStack(history)),
    [stacksQuery.data, history],
  );
  return { rows, stacksQuery };
}

/**
 * Keeps the page's data current with the live deploy events: a finished deploy changes the stack's
 * state, the history and (on success) queues scans. After a reconnect, events may have been missed,
 * so everything is refreshed then too. Refetches keep the old data on screen meanwhile.
 */
export function useRefreshOnDeployEvents() {
  const queryClient = useQueryClient();
  const subscribedBefore = useRef(false);
  useDeployEvents((event) => {
    if (event.type === "subscribed") {
      if (!subscribedBefore.current) {
        subscribedBefore.current = true;
        return;
      }
    } else if (event.type !== "finished") {
      return;
    }
    for (const key of [orpc.stacks.key(), orpc.history.key(), orpc.scans.key()]) {
      void queryClient.invalidateQueries({ queryKey: key });
    }
  });
}
