import { useMemo } from "react";
import { type InitialStacks, useHistoryQuery, useStacksQuery } from "../../lib/queries.ts";
import { lastDeployByStack, type StackRow, toStackRows } from "./model.ts";

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
