import { useT } from "../I18nProvider.tsx";
import { OutcomeLink } from "../runs/RunMarks.tsx";
import { outcomeOf } from "../runs/run-model.ts";
import { ActedBy } from "../ui/ActedBy.tsx";
import { formatDuration, KeyIcon, PersonIcon, RelativeTime } from "../ui/index.ts";
import { actorDisplayName } from "./filters.ts";
import type { HistoryRow } from "./rows.ts";

/** The deploy's outcome (unstable and watching apart from failed), opening its run. */
export function ResultMark({ row, now }: { row: HistoryRow; now: number }) {
  return (
    <OutcomeLink
      id={row.runId}
      outcome={outcomeOf(row)}
      action={row.action}
      stack={row.stack}
      at={row.at}
      now={now}
    />
  );
}

/** When it finished, or for a running deploy how long it has been running. */
export function WhenText({ row, now }: { row: HistoryRow; now: number }) {
  const t = useT();
  if (row.success === undefined) {
    return (
      <span className="tabular-nums">
        {t("history.elapsed", { duration: formatDuration(now - row.at.getTime()) })}
      </span>
    );
  }
  // Never "in 1 second": the server's clock may run a little ahead of the browser's.
  return <RelativeTime date={row.at} now={Math.max(now, row.at.getTime())} />;
}

export function ActionLabel({ action }: { action: HistoryRow["action"] }) {
  const t = useT();
  const labels = {
    pull: t("history.action.pull"),
    redeploy: t("history.action.redeploy"),
    "pull-redeploy": t("history.action.pullRedeploy"),
  } as const;
  return <span title={action}>{labels[action]}</span>;
}

/**
 * Who acted: a person, or a pipeline through its API key, told apart by the icon (and its name),
 * with the person's (or the key owner's) email under it.
 */
export function ActorName({ actor, via, by }: Pick<HistoryRow, "actor" | "via" | "by">) {
  const t = useT();
  const kind = via === "apiKey" ? t("history.via.apiKey") : t("history.via.session");
  const Icon = via === "apiKey" ? KeyIcon : PersonIcon;
  const name = actorDisplayName(actor, via);
  return (
    <span className="inline-flex min-w-0 max-w-56 flex-col">
      <span className="inline-flex min-w-0 items-center gap-1.5" title={`${kind}: ${name}`}>
        <Icon role="img" aria-hidden={false} aria-label={kind} className="size-3.5 shrink-0 text-fg-muted" />
        <span className="truncate">{name}</span>
      </span>
      <ActedBy by={by} via={via} />
    </span>
  );
}
