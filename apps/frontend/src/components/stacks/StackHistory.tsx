import { useStackHistoryPages } from "../../lib/queries.ts";
import { LoadOlder } from "../history/LoadOlder.tsx";
import { useT, useTIsolated } from "../I18nProvider.tsx";
import { Card } from "../ui/Card.tsx";
import { QueryView } from "../ui/QueryView.tsx";
import { SkeletonLines } from "../ui/Skeleton.tsx";
import { DeployHistoryTable } from "./DeployHistoryTable.tsx";

/** The stack's deploys, newest first, as the API lists that stack's history; older ones on request. */
export function StackHistory({ stack }: { stack: string }) {
  const t = useT();
  const tIsolated = useTIsolated();
  const pages = useStackHistoryPages(stack);
  return (
    <Card
      title={t("stacks.history.title")}
      flush
      actions={
        <a
          href={`/history?${new URLSearchParams({ stack })}`}
          className="text-xs font-medium underline underline-offset-2"
        >
          {t("stacks.history.all")}
        </a>
      }
    >
      <QueryView
        query={pages}
        placeholder={<SkeletonLines label={t("stacks.history.loading")} />}
        errorTitle={t("stacks.history.loadFailed")}
        padded
      >
        {({ pages: loaded }) => {
          const entries = loaded.flatMap((page) => page.history);
          return entries.length === 0 ? (
            <p className="px-4 py-3 text-sm text-fg-muted">{tIsolated("stacks.history.empty", { stack })}</p>
          ) : (
            <>
              <DeployHistoryTable entries={entries} label={t("stacks.history.of", { stack })} />
              <LoadOlder pages={pages} className="border-t border-line px-4 py-3" />
            </>
          );
        }}
      </QueryView>
    </Card>
  );
}
