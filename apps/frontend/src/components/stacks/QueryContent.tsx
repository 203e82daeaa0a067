import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { cx } from "../../lib/cx.ts";
import { Skeleton } from "../ui/Skeleton.tsx";
import { LoadProblem } from "./LoadProblem.tsx";

export interface QueryContentProps<Data> {
  query: UseQueryResult<Data>;
  /** Announced while loading, e.g. "Loading the history…". */
  loadingLabel: string;
  /** Said when it failed, e.g. "Couldn't load the history". */
  errorTitle: string;
  /** Pads the loading and error states, for cards whose content runs edge to edge. */
  padded?: boolean;
  /** See LoadProblem: a missing Komodo connection in one line. */
  compact?: boolean;
  children: (data: Data) => ReactNode;
}

/**
 * One block's data, loading on its own: placeholder lines first, then the content; a failure says
 * why, with a retry. Once there is data it stays on screen while it refreshes.
 */
export function QueryContent<Data>({
  query,
  loadingLabel,
  errorTitle,
  padded = false,
  compact = false,
  children,
}: QueryContentProps<Data>) {
  if (query.data !== undefined) return children(query.data);
  return (
    <div className={cx(padded && "p-4")}>
      {query.isError ? (
        <LoadProblem
          error={query.error}
          title={errorTitle}
          onRetry={() => void query.refetch()}
          retrying={query.isFetching}
          compact={compact}
        />
      ) : (
        <div role="status" className="flex flex-col gap-2.5">
          <span className="sr-only">{loadingLabel}</span>
          <Skeleton className="h-4 w-full" />
          <Skeleton className="h-4 w-5/6" />
          <Skeleton className="h-4 w-2/3" />
        </div>
      )}
    </div>
  );
}
