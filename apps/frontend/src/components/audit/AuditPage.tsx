import type { auditEntry } from "@stackgate/contract";
import { useInfiniteQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { orpc } from "../../lib/api.ts";
import { isMessageKey, type PlainMessageKey } from "../../lib/i18n.ts";
import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { LoadOlder } from "../history/LoadOlder.tsx";
import { useT } from "../I18nProvider.tsx";
import { ActedBy } from "../ui/ActedBy.tsx";
import {
  Card,
  EmptyState,
  HistoryIcon,
  QueryView,
  RelativeTime,
  retryWithoutAnswer,
  Table,
  TableBody,
  TableContainer,
  TableHead,
  TableOrList,
  Td,
  Th,
  Tr,
} from "../ui/index.ts";

type AuditEntry = z.infer<typeof auditEntry>;

const AUDIT_PAGE_SIZE = 50;

/** Settings › Audit log (an island, admins only): who changed what, newest first, page by page. */
export function AuditPage({ lang, role }: IslandProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <AuditLog />
    </AppProviders>
  );
}

function AuditLog() {
  const t = useT();
  const pages = useInfiniteQuery(
    orpc.audit.list.infiniteOptions({
      input: (cursor: string | undefined) => ({ cursor, limit: AUDIT_PAGE_SIZE }),
      initialPageParam: undefined,
      getNextPageParam: (page) => page.nextCursor ?? undefined,
      retry: retryWithoutAnswer,
    }),
  );
  return (
    <Card title={t("audit.title")} flush className="max-w-6xl">
      <QueryView query={pages} errorTitle={t("audit.loadFailed")} padded>
        {(data) => {
          const entries = data.pages.flatMap((page) => page.entries);
          if (entries.length === 0)
            return (
              <div className="p-4">
                <EmptyState
                  icon={<HistoryIcon className="size-6" />}
                  title={t("audit.empty")}
                  description={t("audit.emptyHint")}
                />
              </div>
            );
          return (
            <>
              <TableOrList
                from="lg"
                table={<AuditTable entries={entries} />}
                list={<AuditList entries={entries} />}
              />
              <LoadOlder pages={pages} failedMessage={t("audit.loadOlderFailed")} className="p-3" />
            </>
          );
        }}
      </QueryView>
    </Card>
  );
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  const t = useT();
  return (
    <TableContainer>
      <Table aria-label={t("audit.title")}>
        <TableHead>
          <tr>
            <Th>{t("audit.at")}</Th>
            <Th>{t("audit.actor")}</Th>
            <Th>{t("audit.action")}</Th>
            <Th>{t("audit.target")}</Th>
            <Th>{t("audit.detail")}</Th>
          </tr>
        </TableHead>
        <TableBody>
          {entries.map((entry) => (
            <Tr key={entry.id}>
              <Td className="whitespace-nowrap">
                <RelativeTime date={entry.at} />
              </Td>
              {/* Truncated inside a block: a table cell's own max-width does not hold its column back. */}
              <Td className="font-medium">
                <div className="max-w-48 truncate">
                  <bdi>{entry.actor}</bdi>
                </div>
                <div className="max-w-48 font-normal">
                  <ActedBy by={entry.by} via={entry.by.keyId ? "apiKey" : "session"} />
                </div>
              </Td>
              <Td>
                <ActionName action={entry.action} />
              </Td>
              <Td title={entry.target ?? undefined}>
                <div className="max-w-64 truncate">
                  {entry.target ? <bdi>{entry.target}</bdi> : <span className="text-fg-muted">—</span>}
                </div>
              </Td>
              <Td className="max-w-md whitespace-normal!">
                <AuditDetail detail={entry.detail} />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

function AuditList({ entries }: { entries: AuditEntry[] }) {
  const t = useT();
  return (
    <ul aria-label={t("audit.title")} className="divide-y divide-line">
      {entries.map((entry) => (
        <li key={entry.id} className="flex flex-col gap-1 px-4 py-3">
          <div className="flex items-baseline justify-between gap-3">
            <ActionName action={entry.action} />
            <span className="shrink-0 text-xs text-fg-muted">
              <RelativeTime date={entry.at} />
            </span>
          </div>
          <p className="min-w-0 break-words">
            <bdi className="font-medium">{entry.actor}</bdi>
            {entry.target && (
              <>
                <span className="text-fg-muted"> → </span>
                <bdi>{entry.target}</bdi>
              </>
            )}
          </p>
          <ActedBy by={entry.by} via={entry.by.keyId ? "apiKey" : "session"} />
          <AuditDetail detail={entry.detail} />
        </li>
      ))}
    </ul>
  );
}

/**
 * What happened, in the reader's language, with its stable identifier (`user.role-changed`) beside it
 * for those who search logs or the API; an action this dashboard does not know yet shows the identifier.
 */
function ActionName({ action }: { action: string }) {
  const t = useT();
  const key = `auditAction.${action}`;
  const code = <code className="font-mono text-xs text-fg-muted">{action}</code>;
  if (!isMessageKey(key)) return code;
  return (
    <span className="flex flex-col">
      <span>{t(key as PlainMessageKey)}</span>
      {code}
    </span>
  );
}

/** What changed: `from → to` when the entry says so, otherwise each field and its value. */
function AuditDetail({ detail }: { detail: AuditEntry["detail"] }) {
  if (!detail || Object.keys(detail).length === 0) return <span className="text-fg-muted">—</span>;
  const { from, to, ...rest } = detail;
  const parts: string[] = [];
  if (from !== undefined || to !== undefined) parts.push(`${show(from)} → ${show(to)}`);
  for (const [key, value] of Object.entries(rest)) parts.push(`${key}: ${show(value)}`);
  return <span className="wrap-anywhere text-xs text-fg-muted">{parts.join(" · ")}</span>;
}

function show(value: unknown): string {
  if (value === undefined || value === null) return "—";
  return typeof value === "string" ? value : JSON.stringify(value);
}
