import { cx } from "../../lib/cx.ts";
import { CopyButton } from "./CopyButton.tsx";

export interface CodeProps {
  /** An image reference, key, id… shown in monospace. */
  value: string;
  /** Cuts the value to the available width; the full value shows on hover. */
  truncate?: boolean;
  /** Adds a copy button (needs an island with an I18nProvider). */
  copyable?: boolean;
  /** Accessible name of the copy button, e.g. "Copy image reference". */
  copyLabel?: string;
  className?: string;
}

export function Code({ value, truncate = false, copyable = false, copyLabel, className }: CodeProps) {
  const code = (
    <code
      title={truncate ? value : undefined}
      className={cx(
        "rounded bg-surface-muted px-1 py-0.5 font-mono text-[0.8125rem] leading-tight",
        truncate && "block min-w-0 truncate",
        !copyable && className,
      )}
    >
      <bdi>{value}</bdi>
    </code>
  );
  if (!copyable) return code;
  return (
    <span className={cx("inline-flex min-w-0 max-w-full items-center gap-1", className)}>
      {code}
      <CopyButton value={value} label={copyLabel} />
    </span>
  );
}
