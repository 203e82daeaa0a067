import { useMemo } from "react";
import { type InitialStacks, useHistoryQuery, useStacksQuery } from "../../lib/queries.ts";
import { useHydrated } from "../useHydrated.ts";
import { lastDeployByStack, type StackRow, toStackRows } from "./model.ts";

/**
 * The stacks as list rows (problems first), with failed last deploys once the history is in.
 *
 * Until the island is hydrated there are no rows (the server rendered the loading state), unless
 * `renderedByServer`: then the server renders with `initial` too, so the page's content needs no
 * script to show (a stack's page: its content is the largest paint on a phone; the overview's
 * counters: their placeholder's swap moved the page). The Stacks page leaves it off: a long list
 * rendered by the server costs more to hydrate than it saves. The history only counts once hydrated,
 * as the server never has it. `failed`: the list could not be loaded (or refreshed), said once
 * hydrated.
 */
export function useStackRows(
  initial?: InitialStacks | null,
  { renderedByServer = false }: { renderedByServer?: boolean } = {},
): {
  rows: StackRow[] | undefined;
  failed: boolean;
  stacksQuery: ReturnType<typeof useStacksQuery>;
} {
  const hydrated = useHydrated();
  const stacksQuery = useStacksQuery(initial);
  const historyQuery = useHistoryQuery();
  const stacks = hydrated || (renderedByServer && initial) ? stacksQuery.data?.stacks : undefined;
  const history = hydrated ? historyQuery.data?.history : undefined;
  const rows = useMemo(() => stacks && toStackRows(stacks, lastDeployByStack(history)), [stacks, history]);
  return { rows, failed: hydrated && stacksQuery.isError, stacksQuery };
}
