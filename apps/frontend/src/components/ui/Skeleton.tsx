import { cx } from "../../lib/cx.ts";

/** A grey placeholder block shaped like the content that is loading. Decorative: pair it with a status. */
export function Skeleton({ className }: { className?: string }) {
  return (
    <span
      aria-hidden="true"
      className={cx("block rounded bg-surface-muted motion-safe:animate-pulse", className)}
    />
  );
}

/** Placeholder lines for a block of text that is loading, announced as `label`. */
export function SkeletonLines({ label }: { label: string }) {
  return (
    <div role="status" className="flex flex-col gap-2.5">
      <span className="sr-only">{label}</span>
      <Skeleton className="h-4 w-full" />
      <Skeleton className="h-4 w-5/6" />
      <Skeleton className="h-4 w-2/3" />
    </div>
  );
}
