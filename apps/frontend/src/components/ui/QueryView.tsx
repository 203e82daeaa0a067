import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useHydrated } from "../useHydrated.ts";
import { LoadingState } from "./LoadingState.tsx";
import { RequestProblem } from "./RequestProblem.tsx";

export interface QueryViewProps<Data> {
  query: UseQueryResult<Data>;
  /** What could not be loaded, e.g. "Couldn't load the API keys". */
  errorTitle: string;
  /** Shown until the first answer; a spinner unless given (e.g. `<SkeletonLines>` in a card). */
  placeholder?: ReactNode;
  /** Pads the loading and error states, for cards whose content runs edge to edge. */
  padded?: boolean;
  /** See RequestProblem: what the block would show with Komodo connected, and the one-line form. */
  noConnectionHint?: string;
  compact?: boolean;
  children: (data: Data) => ReactNode;
}

/**
 * The three faces of a loaded section: a placeholder until the first answer, the problem (with a
 * retry) when there is nothing to show, and otherwise the data. Once data is shown it stays through
 * background refreshes, even failed ones (the next refresh may well succeed).
 *
 * The server renders the placeholder, so the hydration render does too even when a prefetch has
 * already answered (it would not match otherwise); the data shows in the render right after.
 */
export function QueryView<Data>({
  query,
  errorTitle,
  placeholder,
  padded = false,
  noConnectionHint,
  compact,
  children,
}: QueryViewProps<Data>) {
  const hydrated = useHydrated();
  if (hydrated && query.data !== undefined) return children(query.data);
  const state =
    hydrated && query.isError ? (
      <RequestProblem
        title={errorTitle}
        error={query.error}
        onRetry={() => void query.refetch()}
        retrying={query.isFetching}
        noConnectionHint={noConnectionHint}
        compact={compact}
      />
    ) : (
      (placeholder ?? <LoadingState />)
    );
  return padded ? <div className="p-4">{state}</div> : state;
}
