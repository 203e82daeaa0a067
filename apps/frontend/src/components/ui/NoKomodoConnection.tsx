import { useT } from "../I18nProvider.tsx";
import { PlugIcon } from "../icons.tsx";
import { buttonClasses } from "./Button.tsx";
import { EmptyState } from "./EmptyState.tsx";

export interface NoKomodoConnectionProps {
  /** What the page would show once Komodo is connected. */
  hint: string;
  /** A secondary block: one line (the page says it in full elsewhere). */
  compact?: boolean;
}

/** Data that comes from Komodo while no connection is set up (a 503): the next step is Settings. */
export function NoKomodoConnection({ hint, compact = false }: NoKomodoConnectionProps) {
  const t = useT();
  if (compact) {
    return (
      <p className="text-sm text-fg-muted">
        {t("ui.noConnection.title")}.{" "}
        <a href="/settings" className="font-medium text-fg underline underline-offset-2">
          {t("ui.noConnection.connect")}
        </a>
      </p>
    );
  }
  return (
    <EmptyState
      icon={<PlugIcon className="size-6" />}
      title={t("ui.noConnection.title")}
      description={hint}
      action={
        <a href="/settings" className={buttonClasses("primary")}>
          {t("ui.noConnection.connect")}
        </a>
      }
    />
  );
}
