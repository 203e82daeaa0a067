import type { Translate } from "../../lib/i18n.ts";
import { useT } from "../I18nProvider.tsx";
import { buttonClasses } from "../ui/Button.tsx";
import { EmptyState } from "../ui/EmptyState.tsx";
import { ErrorState } from "../ui/ErrorState.tsx";
import { errorMessage, errorStatus } from "../ui/request-error.ts";

/** Why a request failed, for a reader: the network, Komodo's reason (502), or the server's answer. */
export function describeLoadError(error: unknown, t: Translate): string {
  const status = errorStatus(error);
  if (status === undefined) return t("stacks.load.unreachable");
  if (status === 503) return t("stacks.load.noConnection.hint");
  if (status === 401) return t("stacks.load.signedOut");
  if (status === 502) return t("stacks.load.komodoRefused", { reason: errorMessage(error) });
  return t("stacks.load.failed", { status, reason: errorMessage(error) });
}

export interface LoadProblemProps {
  error: unknown;
  /** What could not be loaded, e.g. "Couldn't load the stacks". */
  title: string;
  onRetry: () => void;
  retrying: boolean;
  /** A secondary block: "no connection" is one line here (the page says it in full elsewhere). */
  compact?: boolean;
}

/**
 * Why data that comes from Komodo is missing, and the next step: connect Komodo (503), sign in again
 * (401), or Komodo's / the network's reason with a retry.
 */
export function LoadProblem({ error, title, onRetry, retrying, compact = false }: LoadProblemProps) {
  const t = useT();
  const status = errorStatus(error);
  if (status === 503 && compact) {
    return (
      <p className="text-sm text-fg-muted">
        {t("stacks.load.noConnection.title")}.{" "}
        <a href="/settings" className="font-medium text-fg underline underline-offset-2">
          {t("stacks.load.noConnection.connect")}
        </a>
      </p>
    );
  }
  if (status === 503) {
    return (
      <EmptyState
        title={t("stacks.load.noConnection.title")}
        description={t("stacks.load.noConnection.description")}
        action={
          <a className={buttonClasses("primary")} href="/settings">
            {t("stacks.load.noConnection.connect")}
          </a>
        }
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
