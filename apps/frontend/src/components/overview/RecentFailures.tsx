import { useHistoryOverviewQuery } from "../../lib/queries.ts";
import { useT } from "../I18nProvider.tsx";
import type { HistoryEntry } from "../stacks/model.ts";
import { RelativeTime } from "../ui/RelativeTime.tsx";
import { stackHref } from "../ui/StackLink.tsx";
import { OverviewPanel } from "./OverviewPanel.tsx";

const SHOWN_FAILURES = 5;

/** The latest failed deploys of the last 30 days, each with Komodo's reason. */
export function RecentFailures({ className }: { className?: string }) {
  const t = useT();
  const query = useHistoryOverviewQuery();
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
      {({ recentFailures }) =>
        recentFailures.length === 0 ? (
          <p className="px-4 py-3 text-sm text-fg-muted">{t("overview.failures.none")}</p>
        ) : (
          <FailureList failures={recentFailures.slice(0, SHOWN_FAILURES)} />
        )
      }
    </OverviewPanel>
  );
}

function FailureList({ failures }: { failures: readonly HistoryEntry[] }) {
  const t = useT();
  const now = Date.now();
  return (
    <ul className="divide-y divide-line">
      {failures.map((failure) => (
        <li key={failure.id} className="flex flex-col gap-0.5 px-4 py-2.5">
          <div className="flex items-baseline justify-between gap-3">
            <a href={stackHref(failure.stack)} className="truncate font-medium hover:underline">
              <bdi>{failure.stack}</bdi>
            </a>
            <span className="shrink-0 text-xs text-fg-muted">
              <RelativeTime date={failure.createdAt} now={now} />
            </span>
          </div>
          <p className="truncate text-xs text-fg-muted" title={failure.actor}>
            {t(`overview.failures.what.${failure.action}`, { actor: failure.actor })}
          </p>
          <p className="line-clamp-2 break-words text-xs text-danger-text" title={failure.message}>
            <bdi>{failure.message}</bdi>
          </p>
        </li>
      ))}
    </ul>
  );
}
