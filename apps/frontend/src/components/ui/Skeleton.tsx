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
