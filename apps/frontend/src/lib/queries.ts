/**
 * The dashboard's shared store: one query definition per endpoint (its key, retry rule and polling),
 * the prefetches that start them early, and the one refresh that follows the live deploy events.
 * Every island reads the API through these, so two pages never ask the same thing in two ways.
 */
import type { HistoryFilters } from "@stackgate/contract";
import {
  keepPreviousData,
  type QueryClient,
  useInfiniteQuery,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { useCallback, useMemo, useRef } from "react";
import { type ImageScan, isInProgress } from "../components/security/scan-model.ts";
import { retryUpstreamRead, retryWithoutAnswer } from "../components/ui/request-error.ts";
import { useHydrated } from "../components/useHydrated.ts";
import { type ApiClient, orpc } from "./api.ts";
import { useDeployEvents } from "./deploy-events.ts";
import { getQueryClient } from "./query-client.ts";

/** While scans are queued or running, ask again this often (quietly: the list stays on screen). */
export const SCAN_POLL_MS = 3_000;
/** While the scanner is not available: the queued scans cannot move, so ask seldom, to see it come back. */
export const SCANNER_DOWN_POLL_MS = 30_000;

export type StackList = Awaited<ReturnType<ApiClient["stacks"]["list"]>>;

/**
 * The stack list fetched by the server while it rendered the page (see server-stacks.ts), as the JSON
 * of `StackList`. Astro revives an island's props value by value in the browser: 200 stacks took
 * about 30 ms of one task that way, and one JSON.parse about 1 ms. The list has no dates to lose.
 */
export interface InitialStacks {
  json: string;
  /** When the server fetched them (epoch ms), so the browser knows how fresh they are. */
  fetchedAt: number;
}

const stacksListOptions = () => orpc.stacks.list.queryOptions({ retry: retryUpstreamRead });
const historyListOptions = () => orpc.history.list.queryOptions({ retry: retryWithoutAnswer });
/** The history one page at a time, newest first, as the API narrows it; `limit` entries a page. */
const historyPagesOptions = (filters: HistoryFilters, limit?: number) =>
  orpc.history.list.infiniteOptions({
    input: (cursor: string | undefined) => ({ ...filters, cursor, limit }),
    initialPageParam: undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    retry: retryWithoutAnswer,
  });
const historyOverviewOptions = () => orpc.history.overview.queryOptions({ retry: retryWithoutAnswer });
const imageScansOptions = () =>
  orpc.scans.images.queryOptions({
    retry: retryUpstreamRead,
    refetchInterval: ({ state: { data } }) => {
      if (data?.scanner?.available === false) return SCANNER_DOWN_POLL_MS;
      return data?.images.some(isInProgress) ? SCAN_POLL_MS : false;
    },
  });
const imageScanOptions = (image: string) =>
  orpc.scans.image.queryOptions({
    input: { image },
    retry: retryWithoutAnswer,
    refetchInterval: ({ state: { data } }) => (data && isInProgress(data) ? SCAN_POLL_MS : false),
  });

/** While a finished deploy's services are watched, its verdict is asked for this long after it is due. */
const SETTLE_VERDICT_GRACE_MS = 3_000;
/** A running run is followed by the live events; this slow read only covers a stream that is down. */
const RUNNING_RUN_POLL_MS = 15_000;

/**
 * One run, as `GET /api/v0/deploy/runs/{id}` answers it. The live events bring its changes (see
 * useLiveRun); a read is repeated only once a watch's verdict is due and has not come.
 */
export const runOptions = (id: string) =>
  orpc.deploy.getRun.queryOptions({
    input: { id },
    retry: retryWithoutAnswer,
    refetchInterval: ({ state: { data } }) => {
      const run = data?.run;
      if (!run) return false;
      if (run.status === "running") return RUNNING_RUN_POLL_MS;
      if (run.settle?.state !== "watching" || !run.settle.until) return false;
      return Math.max(run.settle.until.getTime() - Date.now(), 0) + SETTLE_VERDICT_GRACE_MS;
    },
  });
export const runLogsOptions = (id: string) =>
  orpc.deploy.getRunLogs.queryOptions({ input: { id }, retry: retryWithoutAnswer });
const stackServicesOptions = (stack: string) =>
  orpc.stacks.services.queryOptions({ input: { stack }, retry: retryUpstreamRead });

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
 * The stack list; `initial` (fetched by the server for this page) saves the first request. It is
 * never prefetched: a query that already exists would ignore that initial data.
 *
 * These hooks give the query as it is. Blocks that the server rendered as loading must render so
 * during hydration too, even when a prefetch has already answered: QueryView does that, and so must
 * anything else that shows a query's data (see useHydrated).
 */
export function useStacksQuery(initial?: InitialStacks | null) {
  // A function: parsed only when the query is not in the page's cache yet.
  const seed = initial
    ? { initialData: () => JSON.parse(initial.json) as StackList, initialDataUpdatedAt: initial.fetchedAt }
    : {};
  return useQuery({ ...stacksListOptions(), ...seed });
}

/** The default (unfiltered) history list: the newest actions. */
export function useHistoryQuery() {
  return useQuery(historyListOptions());
}

/**
 * The history narrowed by `filters` (stack, actor, via, outcome) on the server, newest first;
 * `fetchNextPage` adds the next older page, down to the very first action. While other filters load,
 * the rows of the previous ones stay on screen.
 */
export function useHistoryPages(filters: HistoryFilters, { pageSize }: { pageSize?: number } = {}) {
  return useInfiniteQuery({ ...historyPagesOptions(filters, pageSize), placeholderData: keepPreviousData });
}

/** Deploys a stack's page shows at first, and adds with each "Load older". */
const STACK_HISTORY_PAGE_SIZE = 10;

/**
 * One stack's history, a page at a time: its page's history card, and its last deploy in the summary
 * (the same query, so one request serves both).
 */
export function useStackHistoryPages(stack: string) {
  return useHistoryPages({ stack }, { pageSize: STACK_HISTORY_PAGE_SIZE });
}

/** What each service of a stack runs now, and the deploy that brought it. */
export function useStackServicesQuery(stack: string) {
  return useQuery(stackServicesOptions(stack));
}

export function useHistoryOverviewQuery() {
  return useQuery(historyOverviewOptions());
}

/** Every image's latest scan, polled while any scan is under way. */
export function useImageScansQuery() {
  return useQuery(imageScansOptions());
}

/** One image's latest scan with its vulnerabilities, polled while that scan is under way. */
export function useImageScanQuery(image: string) {
  return useQuery(imageScanOptions(image));
}

/**
 * The latest scan per image reference: empty while loading, when the scan list failed, and until the
 * island is hydrated (the server renders without scans). `failed` likewise waits for hydration.
 */
export function useScansByImage(): {
  scans: Map<string, ImageScan>;
  failed: boolean;
  query: ReturnType<typeof useImageScansQuery>;
} {
  const hydrated = useHydrated();
  const query = useImageScansQuery();
  const images = hydrated ? query.data?.images : undefined;
  const scans = useMemo(() => new Map((images ?? []).map((scan) => [scan.image, scan])), [images]);
  return { scans, failed: hydrated && query.isError, query };
}

/**
 * What a finished deploy changes: the stack's state, every history list (filtered or not), and (on
 * success) the queued scans. Refetches keep the old data on screen meanwhile.
 */
export function useRefreshAfterDeploy(): () => void {
  const queryClient = useQueryClient();
  return useCallback(() => {
    for (const key of [orpc.stacks.key(), orpc.history.key(), orpc.scans.key()]) {
      void queryClient.invalidateQueries({ queryKey: key });
    }
  }, [queryClient]);
}

/**
 * Keeps the page's data current with the live deploy events: refreshes after every finished deploy,
 * once more when its watch has settled, and after a reconnect too, since events may have been missed
 * meanwhile.
 */
export function useRefreshOnDeployEvents() {
  const refresh = useRefreshAfterDeploy();
  const subscribedBefore = useRef(false);
  useDeployEvents((event) => {
    if (event.type === "subscribed") {
      if (!subscribedBefore.current) {
        subscribedBefore.current = true;
        return;
      }
    } else if (event.type !== "finished" && event.type !== "settled") {
      return;
    }
    refresh();
  });
}
