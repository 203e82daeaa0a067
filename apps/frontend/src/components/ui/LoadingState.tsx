import { useT } from "../I18nProvider.tsx";
import { Spinner } from "./Spinner.tsx";

/** What a section shows while its first answer is on the way (later refreshes never show it). */
export function LoadingState({ label, className }: { label?: string; className?: string }) {
  const t = useT();
  return (
    <div className={className ?? "flex items-center justify-center gap-2 py-10 text-fg-muted"}>
      <Spinner label={label ?? t("ui.loading")} />
      <span aria-hidden="true">{label ?? t("ui.loading")}</span>
    </div>
  );
}
