import type { ComponentProps, ReactNode } from "react";
import { cx } from "../../lib/cx.ts";

export interface IconButtonProps extends Omit<ComponentProps<"button">, "children"> {
  /** The accessible name, also shown as a tooltip. */
  label: string;
  icon: ReactNode;
  size?: "sm" | "md";
}

export function IconButton({
  label,
  icon,
  size = "md",
  type = "button",
  className,
  ...props
}: IconButtonProps) {
  return (
    <button
      type={type}
      aria-label={label}
      title={label}
      className={cx(
        "inline-flex shrink-0 items-center justify-center rounded-md text-fg-muted transition-colors hover:bg-surface-muted hover:text-fg",
        size === "sm" ? "size-7" : "size-9",
        className,
      )}
      {...props}
    >
      {icon}
    </button>
  );
}
