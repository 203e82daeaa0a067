import { useT } from "../I18nProvider.tsx";
import { ChangesInline, UnstableReason } from "../runs/RunMarks.tsx";
import { StackLink } from "../ui/index.ts";
import { ActionLabel, ActorName, ResultMark, WhenText } from "./cells.tsx";
import { MessageCell } from "./MessageCell.tsx";
import { type HistoryRow, resultOf } from "./rows.ts";

/** The history on narrow screens: a short block per deploy, nothing hidden off to the side. */
export function HistoryCompactList({ rows, now }: { rows: HistoryRow[]; now: number }) {
  const t = useT();
  return (
    <ul
      aria-label={t("history.tableLabel")}
      className="overflow-hidden rounded-lg border border-line bg-surface"
    >
      {rows.map((row) => (
        <li key={row.id} className="flex flex-col gap-1 border-b border-line px-3 py-2.5 last:border-b-0">
          <div className="flex min-w-0 items-center justify-between gap-3">
            <ResultMark row={row} now={now} />
            <span className="shrink-0 text-xs text-fg-muted">
              <WhenText row={row} now={now} />
            </span>
          </div>
          <div className="flex min-w-0 flex-wrap items-center gap-x-2">
            <StackLink stack={row.stack} className="font-medium" />
            <span className="text-fg-muted">
              <ActionLabel action={row.action} />
            </span>
            <span aria-hidden="true" className="text-fg-muted">
              ·
            </span>
            <ActorName actor={row.actor} via={row.via} by={row.by} />
          </div>
          <CompactMessage row={row} />
          <UnstableReason settle={row.settle} />
          <ChangesInline changes={row.changes} className="max-w-full" />
        </li>
      ))}
    </ul>
  );
}

function CompactMessage({ row }: { row: HistoryRow }) {
  const result = resultOf(row);
  return result ? <MessageCell result={result} className="max-w-full text-xs" /> : null;
}
