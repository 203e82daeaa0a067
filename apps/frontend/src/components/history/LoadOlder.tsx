import type { UseInfiniteQueryResult } from "@tanstack/react-query";
import { cx } from "../../lib/cx.ts";
import { useT } from "../I18nProvider.tsx";
import { Button } from "../ui/Button.tsx";

type Pages = Pick<
  UseInfiniteQueryResult,
  "hasNextPage" | "isFetchingNextPage" | "isFetchNextPageError" | "fetchNextPage"
>;

/**
 * "Load older" under a history list while the API has older entries; the focus stays on the button
 * as the next page arrives above it, so a keyboard can go on loading.
 */
export function LoadOlder({
  pages,
  failedMessage,
  className,
}: {
  pages: Pages;
  /** What could not be loaded; the history's deploys unless given. */
  failedMessage?: string;
  className?: string;
}) {
  const t = useT();
  if (!pages.hasNextPage) return null;
  return (
    <div className={cx("flex flex-wrap items-center justify-center gap-3", className)}>
      {pages.isFetchNextPageError && !pages.isFetchingNextPage && (
        <p role="alert" className="text-sm text-danger-text">
          {failedMessage ?? t("history.loadOlderFailed")}
        </p>
      )}
      <Button size="sm" loading={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
        {pages.isFetchingNextPage ? t("history.loadingOlder") : t("history.loadOlder")}
      </Button>
    </div>
  );
}
