import { type ReactNode, useId } from "react";
import { cx } from "../../lib/cx.ts";

export interface CardProps {
  title?: ReactNode;
  description?: ReactNode;
  /** Controls shown at the right of the title. */
  actions?: ReactNode;
  /** Drops the body padding, for a table or list that runs edge to edge. */
  flush?: boolean;
  className?: string;
  children?: ReactNode;
}

/** A summary panel. Lists belong in tables; cards hold figures, charts and short forms. */
export function Card({ title, description, actions, flush = false, className, children }: CardProps) {
  const titleId = useId();
  return (
    <section
      aria-labelledby={title ? titleId : undefined}
      className={cx("overflow-hidden rounded-lg border border-line bg-surface", className)}
    >
      {(title || actions) && (
        <header className="flex items-start justify-between gap-3 border-b border-line px-4 py-3">
          <div className="min-w-0">
            {title && (
              <h2 id={titleId} className="text-sm font-semibold">
                {title}
              </h2>
            )}
            {description && <p className="mt-0.5 text-xs text-fg-muted">{description}</p>}
          </div>
          {actions && <div className="flex shrink-0 items-center gap-2">{actions}</div>}
        </header>
      )}
      <div className={flush ? undefined : "p-4"}>{children}</div>
    </section>
  );
}
