import { useHistoryQuery } from "../../lib/queries.ts";
import { useT, useTIsolated } from "../I18nProvider.tsx";
import { Card } from "../ui/Card.tsx";
import { DeployHistoryTable } from "./DeployHistoryTable.tsx";
import { QueryContent } from "./QueryContent.tsx";

const SHOWN_ENTRIES = 10;

/** The stack's latest deploys, from the shared history (its last 100 actions). */
export function StackHistory({ stack }: { stack: string }) {
  const t = useT();
  const tIsolated = useTIsolated();
  const query = useHistoryQuery();
  return (
    <Card
      title={t("stacks.history.title")}
      flush
      actions={
        <a href="/history" className="text-xs font-medium underline underline-offset-2">
          {t("stacks.history.all")}
        </a>
      }
    >
      <QueryContent
        query={query}
        loadingLabel={t("stacks.history.loading")}
        errorTitle={t("stacks.history.loadFailed")}
        padded
      >
        {({ history }) => {
          const entries = history.filter((entry) => entry.stack === stack).slice(0, SHOWN_ENTRIES);
          return entries.length === 0 ? (
            <p className="px-4 py-3 text-sm text-fg-muted">{tIsolated("stacks.history.empty", { stack })}</p>
          ) : (
            <DeployHistoryTable entries={entries} label={t("stacks.history.of", { stack })} />
          );
        }}
      </QueryContent>
    </Card>
  );
}
