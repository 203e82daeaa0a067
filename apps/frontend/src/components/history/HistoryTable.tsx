import { useT } from "../I18nProvider.tsx";
import { ChangesInline, UnstableReason } from "../runs/RunMarks.tsx";
import { StackLink, Table, TableBody, TableContainer, TableHead, Td, Th, Tr } from "../ui/index.ts";
import { ActionLabel, ActorName, ResultMark, WhenText } from "./cells.tsx";
import { MessageCell } from "./MessageCell.tsx";
import { type HistoryRow, resultOf } from "./rows.ts";

/** The history on wider screens: one dense line per deploy, the message taking the room that is left. */
export function HistoryTable({ rows, now }: { rows: HistoryRow[]; now: number }) {
  const t = useT();
  return (
    <TableContainer className="relative max-h-[calc(100dvh-15rem)]" label={t("history.tableLabel")}>
      <Table aria-label={t("history.tableLabel")}>
        <TableHead>
          <tr>
            <Th>{t("history.col.result")}</Th>
            <Th>{t("history.col.when")}</Th>
            <Th>{t("history.col.stack")}</Th>
            <Th>{t("history.col.action")}</Th>
            <Th>{t("history.col.actor")}</Th>
            <Th className="w-full">{t("history.col.message")}</Th>
          </tr>
        </TableHead>
        <TableBody>
          {rows.map((row) => (
            <Tr key={row.id}>
              <Td>
                <ResultMark row={row} now={now} />
              </Td>
              <Td className="text-fg-muted">
                <WhenText row={row} now={now} />
              </Td>
              <Td>
                <StackLink stack={row.stack} className="font-medium" />
              </Td>
              <Td>
                <ActionLabel action={row.action} />
              </Td>
              <Td>
                <ActorName actor={row.actor} via={row.via} by={row.by} />
              </Td>
              <Td>
                <RowMessage row={row} />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** The message, and under it what the deploy changed. */
function RowMessage({ row }: { row: HistoryRow }) {
  const t = useT();
  const result = resultOf(row);
  if (!result) return <span className="text-fg-muted">{t("history.inProgress")}</span>;
  const width = "max-w-xs lg:max-w-sm xl:max-w-lg 2xl:max-w-3xl";
  return (
    <>
      <MessageCell result={result} className={width} />
      <UnstableReason settle={row.settle} className={width} />
      <ChangesInline changes={row.changes} className={width} />
    </>
  );
}
