import type { ReactNode } from "react";
import { InboxIcon } from "../icons.tsx";

export interface EmptyStateProps {
  title: ReactNode;
  /** What the list would hold, and how it fills up. */
  description?: ReactNode;
  /** The next step, e.g. a link to connect Komodo. An empty state always says what to do next. */
  action?: ReactNode;
  icon?: ReactNode;
}

export function EmptyState({
  title,
  description,
  action,
  icon = <InboxIcon className="size-6" />,
}: EmptyStateProps) {
  return (
    <div className="flex flex-col items-center gap-2 rounded-lg border border-dashed border-line px-6 py-10 text-center">
      <span className="text-fg-muted">{icon}</span>
      <p className="text-sm font-semibold">{title}</p>
      {description && <div className="max-w-prose text-sm text-fg-muted">{description}</div>}
      {action && <div className="mt-2">{action}</div>}
    </div>
  );
}
