import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { LoadingState } from "./LoadingState.tsx";
import { RequestErrorState } from "./RequestErrorState.tsx";

export interface QueryViewProps<Data> {
  query: UseQueryResult<Data>;
  /** What could not be loaded, e.g. "Couldn't load the API keys". */
  errorTitle: string;
  children: (data: Data) => ReactNode;
}

/**
 * The three faces of a loaded section: a spinner until the first answer, the error with a retry when
 * there is nothing to show, and otherwise the data. Once data is shown it stays through background
 * refreshes, even failed ones (the next refresh may well succeed).
 */
export function QueryView<Data>({ query, errorTitle, children }: QueryViewProps<Data>) {
  if (query.data !== undefined) return children(query.data);
  if (query.isError) {
    return (
      <RequestErrorState
        title={errorTitle}
        error={query.error}
        onRetry={() => void query.refetch()}
        retrying={query.isFetching}
      />
    );
  }
  return <LoadingState />;
}
