import { useT } from "../I18nProvider.tsx";
import { Badge } from "../ui/Badge.tsx";

/** Amber "Update" when newer images exist; the count when more than one service has one. */
export function UpdateMarker({ count }: { count: number }) {
  const t = useT();
  if (count === 0) return null;
  return (
    <span title={t("stacks.update.title", { count })}>
      <Badge tone="warning">
        {count === 1 ? t("stacks.update.one") : t("stacks.update.many", { count })}
      </Badge>
    </span>
  );
}
