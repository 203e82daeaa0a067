import type { ReactNode } from "react";
import { useT } from "../I18nProvider.tsx";
import { AlertIcon, RetryIcon } from "../icons.tsx";
import { Button } from "./Button.tsx";

export interface ErrorStateProps {
  /** What failed, e.g. "Couldn't load the stacks". */
  title: ReactNode;
  /** Why, and what the reader can do about it. */
  description?: ReactNode;
  onRetry?: () => void;
  retrying?: boolean;
}

export function ErrorState({ title, description, onRetry, retrying = false }: ErrorStateProps) {
  const t = useT();
  return (
    <div
      role="alert"
      className="flex flex-col items-center gap-2 rounded-lg border border-danger/40 bg-surface px-6 py-8 text-center"
    >
      <AlertIcon className="size-6 text-danger-text" />
      <p className="text-sm font-semibold">{title}</p>
      {description && <div className="max-w-prose text-sm text-fg-muted">{description}</div>}
      {onRetry && (
        <Button className="mt-2" onClick={onRetry} loading={retrying} icon={<RetryIcon className="size-4" />}>
          {t("ui.retry")}
        </Button>
      )}
    </div>
  );
}
