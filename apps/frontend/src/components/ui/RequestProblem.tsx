import { useT } from "../I18nProvider.tsx";
import { buttonClasses } from "./Button.tsx";
import { EmptyState } from "./EmptyState.tsx";
import { ErrorState } from "./ErrorState.tsx";
import { NoKomodoConnection } from "./NoKomodoConnection.tsx";
import { errorStatus } from "./request-error.ts";
import { describeLoadError } from "./request-message.ts";

export interface RequestProblemProps {
  error: unknown;
  /** What could not be loaded, e.g. "Couldn't load the stacks". */
  title: string;
  onRetry: () => void;
  retrying: boolean;
  /** What the block would show with Komodo connected; said when there is no connection (503). */
  noConnectionHint?: string;
  /** A secondary block: "no connection" is one line here (the page says it in full elsewhere). */
  compact?: boolean;
}

/**
 * Why data is missing, and the next step: connect Komodo (503), sign in again (401), or the reason
 * (Komodo's, the network's or the server's) with a retry.
 */
export function RequestProblem({
  error,
  title,
  onRetry,
  retrying,
  noConnectionHint,
  compact = false,
}: RequestProblemProps) {
  const t = useT();
  const status = errorStatus(error);
  if (status === 503) {
    return (
      <NoKomodoConnection
        hint={noConnectionHint ?? t("stacks.load.noConnection.description")}
        compact={compact}
      />
    );
  }
  if (status === 401) {
    const next = `${window.location.pathname}${window.location.search}`;
    return (
      <EmptyState
        title={t("stacks.load.signedOut")}
        action={
          <a className={buttonClasses("primary")} href={`/sign-in?next=${encodeURIComponent(next)}`}>
            {t("stacks.load.signIn")}
          </a>
        }
      />
    );
  }
  return (
    <ErrorState
      title={title}
      description={describeLoadError(error, t)}
      onRetry={onRetry}
      retrying={retrying}
    />
  );
}
