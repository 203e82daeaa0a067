import { useMemo } from "react";
import {
  type InitialStacks,
  useHistoryQuery,
  useStackHistoryPages,
  useStacksQuery,
} from "../../lib/queries.ts";
import { useHydrated } from "../useHydrated.ts";
import { lastDeployByStack, type StackRow, toStackRows } from "./model.ts";

/**
 * The stacks as list rows (problems first), with failed last deploys once the history is in.
 *
 * Until the island is hydrated there are no rows (the server rendered the loading state), unless
 * `renderedByServer`: then the server renders with `initial` too, so the page's content needs no
 * script to show (the overview's counters: their placeholder's swap moved the page). The Stacks page
 * leaves it off: a long list rendered by the server costs more to hydrate than it saves. The history
 * only counts once hydrated, as the server never has it. `failed`: the list could not be loaded (or
 * refreshed), said once hydrated.
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

/**
 * One stack's row, for its own page: built from that stack alone, with its last deploy from its own
 * history (the page's history card asks for the same first page), so the page neither builds a row
 * for every stack nor asks for everyone's recent history. `row` is null when the list has no such
 * stack. The server renders with `initial` (as `renderedByServer` above): on a phone the stack's
 * content is the page's largest paint.
 */
export function useStackRow(
  initial: InitialStacks | null | undefined,
  name: string,
): {
  row: StackRow | null | undefined;
  failed: boolean;
  stacksQuery: ReturnType<typeof useStacksQuery>;
} {
  const hydrated = useHydrated();
  const stacksQuery = useStacksQuery(initial);
  const historyPages = useStackHistoryPages(name);
  const stacks = hydrated || initial ? stacksQuery.data?.stacks : undefined;
  const newest = hydrated ? historyPages.data?.pages[0]?.history[0] : undefined;
  const row = useMemo(() => {
    if (!stacks) return undefined;
    const stack = stacks.find((candidate) => candidate.name === name);
    return stack ? toStackRows([stack], lastDeployByStack(newest && [newest]))[0] : null;
  }, [stacks, name, newest]);
  return { row, failed: hydrated && stacksQuery.isError, stacksQuery };
}
