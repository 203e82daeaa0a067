import { deployResultMessage } from "../../lib/deploy-result.ts";
import { useT } from "../I18nProvider.tsx";
import { ActedBy } from "../ui/ActedBy.tsx";
import { StatusMark } from "../ui/Badge.tsx";
import { RelativeTime } from "../ui/RelativeTime.tsx";
import { Table, TableBody, TableContainer, TableHead, Td, Th, Tr } from "../ui/Table.tsx";
import { Actor } from "./Actor.tsx";
import type { HistoryEntry } from "./model.ts";

export interface DeployHistoryTableProps {
  entries: readonly HistoryEntry[];
  label: string;
}

/** Deploys as one line each: when, what, who, the result and, for a failure, Komodo's reason. */
export function DeployHistoryTable({ entries, label }: DeployHistoryTableProps) {
  const t = useT();
  const now = Date.now();
  return (
    <TableContainer className="rounded-none border-0" label={label}>
      <Table aria-label={label} className="min-w-[44rem] table-fixed">
        <colgroup>
          <col className="w-36" />
          <col className="w-44" />
          <col className="w-28" />
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
              <Td>
                <StatusMark
                  tone={entry.success ? "success" : "danger"}
                  label={entry.success ? t("stacks.history.succeeded") : t("stacks.history.failed")}
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

/** The result in the dashboard's language for a success; a failure in Komodo's own words. */
function MessageTd({ entry }: { entry: HistoryEntry }) {
  const t = useT();
  const message = deployResultMessage(entry, t);
  return (
    <Td className={entry.success ? "truncate text-fg-muted" : "truncate text-danger-text"} title={message}>
      <bdi>{message}</bdi>
    </Td>
  );
}
