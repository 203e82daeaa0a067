import { cx } from "../../lib/cx.ts";
import { deployResultMessage } from "../../lib/deploy-result.ts";
import { useT } from "../I18nProvider.tsx";
import { ChangesInline, OutcomeLink, UnstableReason } from "../runs/RunMarks.tsx";
import { outcomeOf } from "../runs/run-model.ts";
import { ActedBy } from "../ui/ActedBy.tsx";
import { RelativeTime } from "../ui/RelativeTime.tsx";
import { Table, TableBody, TableContainer, TableHead, Td, Th, Tr } from "../ui/Table.tsx";
import { Actor } from "./Actor.tsx";
import type { HistoryEntry } from "./model.ts";

export interface DeployHistoryTableProps {
  entries: readonly HistoryEntry[];
  label: string;
}

/**
 * Deploys as one line each (two with what they changed): when, what, who, the result (opening the
 * run) and, for a failure, Komodo's reason.
 */
export function DeployHistoryTable({ entries, label }: DeployHistoryTableProps) {
  const t = useT();
  const now = Date.now();
  return (
    <TableContainer className="rounded-none border-0" label={label}>
      <Table aria-label={label} className="min-w-[44rem] table-fixed">
        <colgroup>
          <col className="w-36" />
          <col className="w-40" />
          <col className="w-36" />
          <col className="w-36" />
          <col />
        </colgroup>
        <TableHead>
          <tr>
            <Th>{t("stacks.history.when")}</Th>
            <Th>{t("stacks.history.action")}</Th>
            <Th>{t("stacks.history.result")}</Th>
            <Th>{t("stacks.history.by")}</Th>
            <Th>{t("stacks.history.message")}</Th>
          </tr>
        </TableHead>
        <TableBody>
          {entries.map((entry) => (
            <Tr key={entry.id}>
              <Td className="truncate text-fg-muted">
                <RelativeTime date={entry.createdAt} now={now} />
              </Td>
              <Td className="truncate">{t(`stacks.action.${entry.action}`)}</Td>
              <Td className="overflow-hidden">
                <OutcomeLink
                  id={entry.id}
                  outcome={outcomeOf(entry)}
                  action={entry.action}
                  stack={entry.stack}
                  at={entry.createdAt}
                  now={now}
                />
              </Td>
              <Td className="overflow-hidden text-fg-muted">
                <Actor name={entry.actor} via={entry.via} />
                <ActedBy by={entry.by} via={entry.via} />
              </Td>
              <MessageTd entry={entry} />
            </Tr>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/**
 * The result in the dashboard's language for a success, a failure in Komodo's own words; why it did
 * not stay up, and what it changed.
 */
function MessageTd({ entry }: { entry: HistoryEntry }) {
  const t = useT();
  const message = deployResultMessage(entry, t);
  return (
    <Td className="overflow-hidden">
      <span
        className={cx("block truncate", entry.success ? "text-fg-muted" : "text-danger-text")}
        title={message}
      >
        <bdi>{message}</bdi>
      </span>
      <UnstableReason settle={entry.settle} />
      <ChangesInline changes={entry.changes} />
    </Td>
  );
}
