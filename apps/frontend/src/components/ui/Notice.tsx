import type { ReactNode } from "react";
import { cx } from "../../lib/cx.ts";
import { type Tone, toneClasses } from "./tone.ts";

export interface NoticeProps {
  tone: Tone;
  title: ReactNode;
  children?: ReactNode;
  /** "status" for results that arrive after an action (read politely), "alert" for failures. */
  role?: "status" | "alert";
  /** Controls at the right, e.g. a dismiss or undo button. */
  actions?: ReactNode;
  className?: string;
}

/** A result or warning inside a section: a tinted box with the tone's dot, a title line and details. */
export function Notice({ tone, title, children, role, actions, className }: NoticeProps) {
  const { dot, soft } = toneClasses[tone];
  return (
    <div role={role} className={cx("flex items-start gap-2.5 rounded-md px-3 py-2.5", soft, className)}>
      <span aria-hidden="true" className={cx("mt-1.5 size-2 shrink-0 rounded-full", dot)} />
      <div className="min-w-0 flex-1 text-sm">
        <p className="font-medium">{title}</p>
        {children && <div className="mt-0.5 break-words text-fg-muted">{children}</div>}
      </div>
      {actions && <div className="flex shrink-0 items-center gap-1">{actions}</div>}
    </div>
  );
}
