import { cx } from "../../lib/cx.ts";
import { useHistoryOverviewQuery, useHistoryQuery } from "../../lib/queries.ts";
import { useT } from "../I18nProvider.tsx";
import { OutcomeLink } from "../runs/RunMarks.tsx";
import { outcomeOf } from "../runs/run-model.ts";
import type { HistoryEntry } from "../stacks/model.ts";
import { RelativeTime } from "../ui/RelativeTime.tsx";
import { stackHref } from "../ui/StackLink.tsx";
import { useHydrated } from "../useHydrated.ts";
import { OverviewPanel } from "./OverviewPanel.tsx";

const SHOWN_PROBLEMS = 5;

/**
 * The latest failed deploys of the last 30 days (from the overview) and the latest that did not stay
 * up (from the recent history: the overview lists failures only), newest first, each opening its run.
 */
export function recentProblems(
  failures: readonly HistoryEntry[],
  recent: readonly HistoryEntry[] | undefined,
  since: Date,
): HistoryEntry[] {
  const unstable = (recent ?? []).filter(
    (entry) => entry.settle?.state === "unstable" && entry.createdAt >= since,
  );
  const byId = new Map([...failures, ...unstable].map((entry) => [entry.id, entry]));
  return [...byId.values()]
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
    .slice(0, SHOWN_PROBLEMS);
}

/** The latest failed or unstable deploys, each with Komodo's reason or why it did not stay up. */
export function RecentFailures({ className }: { className?: string }) {
  const t = useT();
  const query = useHistoryOverviewQuery();
  const hydrated = useHydrated();
  const recent = useHistoryQuery().data?.history;
  return (
    <OverviewPanel
      title={t("overview.failures.title")}
      allHref="/history"
      allLabel={t("overview.failures.all")}
      className={className}
      query={query}
      loadingLabel={t("overview.failures.loading")}
      errorTitle={t("overview.failures.loadFailed")}
    >
      {({ recentFailures, since }) => {
        const problems = recentProblems(recentFailures, hydrated ? recent : undefined, since);
        return problems.length === 0 ? (
          <p className="px-4 py-3 text-sm text-fg-muted">{t("overview.failures.none")}</p>
        ) : (
          <ProblemList problems={problems} />
        );
      }}
    </OverviewPanel>
  );
}

function ProblemList({ problems }: { problems: readonly HistoryEntry[] }) {
  const t = useT();
  const now = Date.now();
  return (
    <ul className="divide-y divide-line">
      {problems.map((entry) => {
        const outcome = outcomeOf(entry);
        const reason = outcome === "unstable" ? (entry.settle?.reason ?? "") : entry.message;
        return (
          <li key={entry.id} className="flex flex-col gap-0.5 px-4 py-2.5">
            <div className="flex items-baseline justify-between gap-3">
              <a href={stackHref(entry.stack)} className="truncate font-medium hover:underline">
                <bdi>{entry.stack}</bdi>
              </a>
              <span className="shrink-0 text-xs text-fg-muted">
                <RelativeTime date={entry.createdAt} now={now} />
              </span>
            </div>
            <div className="flex min-w-0 items-center gap-2 text-xs">
              <OutcomeLink
                id={entry.id}
                outcome={outcome}
                action={entry.action}
                stack={entry.stack}
                at={entry.createdAt}
                now={now}
              />
              <span className="min-w-0 truncate text-fg-muted" title={entry.actor}>
                {t(`overview.failures.what.${entry.action}`, { actor: entry.actor })}
              </span>
            </div>
            {reason && (
              <p
                className={cx(
                  "line-clamp-2 break-words text-xs",
                  outcome === "unstable" ? "text-warning-text" : "text-danger-text",
                )}
                title={reason}
              >
                <bdi>{reason}</bdi>
              </p>
            )}
          </li>
        );
      })}
    </ul>
  );
}
