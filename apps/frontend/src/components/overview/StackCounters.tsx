import { useMemo } from "react";
import { cx } from "../../lib/cx.ts";
import type { InitialStacks } from "../../lib/queries.ts";
import { useT } from "../I18nProvider.tsx";
import { countByFilter, type StackFilter } from "../stacks/model.ts";
import { useStackRows } from "../stacks/useStackRows.ts";
import { RequestProblem } from "../ui/RequestProblem.tsx";
import { Skeleton } from "../ui/Skeleton.tsx";
import { type Tone, toneClasses } from "../ui/tone.ts";

interface Counter {
  filter: StackFilter;
  tone: (count: number) => Tone;
}

/** Each counter opens the Stacks page with the same filter, so the numbers always match there. */
const COUNTERS: readonly Counter[] = [
  { filter: "all", tone: () => "neutral" },
  { filter: "running", tone: () => "success" },
  { filter: "updates", tone: (count) => (count > 0 ? "warning" : "neutral") },
  { filter: "problems", tone: (count) => (count > 0 ? "danger" : "success") },
];

/**
 * How many stacks there are, run, have an update, or are in trouble (live from Komodo). The server
 * renders the counters from the list it fetched: on a phone a counter's hint may take two lines, so a
 * placeholder swapped for them moved the cards below (layout shift 0.13 to 0.29 at 200 stacks).
 */
export function StackCounters({ initialStacks }: { initialStacks: InitialStacks | null }) {
  const t = useT();
  const { rows, failed, stacksQuery } = useStackRows(initialStacks, { renderedByServer: true });
  const counts = useMemo(() => rows && countByFilter(rows), [rows]);

  if (!counts) {
    if (failed) {
      return (
        <RequestProblem
          error={stacksQuery.error}
          title={t("overview.counters.loadFailed")}
          onRetry={() => void stacksQuery.refetch()}
          retrying={stacksQuery.isFetching}
        />
      );
    }
    return (
      <div role="status" className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        <span className="sr-only">{t("overview.counters.loading")}</span>
        {COUNTERS.map(({ filter }) => (
          <Skeleton key={filter} className="h-[5.5rem] rounded-lg" />
        ))}
      </div>
    );
  }

  return (
    <ul aria-label={t("overview.counters.label")} className="grid grid-cols-2 gap-3 lg:grid-cols-4">
      {COUNTERS.map(({ filter, tone }) => {
        const count = counts[filter];
        const { dot } = toneClasses[tone(count)];
        return (
          <li key={filter}>
            <a
              href={filter === "all" ? "/stacks" : `/stacks?filter=${filter}`}
              className="flex h-full flex-col gap-1 rounded-lg border border-line bg-surface p-4 transition-colors hover:border-control"
            >
              <span className="flex items-center gap-1.5 text-xs font-medium text-fg-muted">
                <span aria-hidden="true" className={cx("size-2 rounded-full", dot)} />
                {t(`overview.counters.${filter}`)}
              </span>
              <span className="text-2xl font-semibold tabular-nums">{count}</span>
              <span className="text-xs text-fg-muted">{t(`overview.counters.${filter}.hint`)}</span>
            </a>
          </li>
        );
      })}
    </ul>
  );
}
