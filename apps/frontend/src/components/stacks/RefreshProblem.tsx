import { useT } from "../I18nProvider.tsx";
import { AlertIcon } from "../icons.tsx";

/** A one-line notice above data that is still shown but could not be refreshed (or completed). */
export function RefreshProblem({ message, onRetry }: { message: string; onRetry: () => void }) {
  const t = useT();
  return (
    <div
      role="alert"
      className="flex flex-wrap items-center gap-x-2 gap-y-1 rounded-md border border-warning/50 bg-warning-soft px-3 py-1.5 text-xs"
    >
      <AlertIcon className="size-4 text-warning-text" />
      <span className="min-w-0 flex-1 break-words">{message}</span>
      <button type="button" onClick={onRetry} className="font-medium underline underline-offset-2">
        {t("ui.retry")}
      </button>
    </div>
  );
}
