import { useT } from "../I18nProvider.tsx";
import { Skeleton } from "../ui/Skeleton.tsx";

const PLACEHOLDER_ROWS = Array.from({ length: 12 }, (_, index) => `placeholder-${index}`);

/** The list's shape while the first answer is on its way (also what the server renders). */
export function StacksSkeleton() {
  const t = useT();
  return (
    <div role="status" className="overflow-hidden rounded-lg border border-line bg-surface">
      <span className="sr-only">{t("stacks.loading")}</span>
      <div className="h-8 border-b border-line bg-surface-muted" />
      {PLACEHOLDER_ROWS.map((key) => (
        <div key={key} className="flex h-[33px] items-center gap-4 border-b border-line px-3 last:border-b-0">
          <Skeleton className="h-3 w-28" />
          <Skeleton className="h-3 w-20" />
          <Skeleton className="hidden h-3 flex-1 sm:block" />
          <Skeleton className="h-5 w-48 max-sm:flex-1" />
        </div>
      ))}
    </div>
  );
}
