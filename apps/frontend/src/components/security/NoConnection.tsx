import { useT } from "../I18nProvider.tsx";
import { buttonClasses, EmptyState, PlugIcon } from "../ui/index.ts";

/** Scans need the stacks, and the stacks need Komodo: the next step is Settings. */
export function NoConnection() {
  const t = useT();
  return (
    <EmptyState
      icon={<PlugIcon className="size-6" />}
      title={t("security.noConnection")}
      description={t("security.noConnectionHint")}
      action={
        <a href="/settings" className={buttonClasses("primary")}>
          {t("security.connect")}
        </a>
      }
    />
  );
}
