import type { HTMLAttributes, ReactNode, TdHTMLAttributes, ThHTMLAttributes } from "react";
import { cx } from "../../lib/cx.ts";
import { useKeyboardScrollable } from "./useKeyboardScrollable.ts";

/**
 * Dense tables: a scrolling container whose header row stays in view, compact rows (33 px with a small
 * button in them, so a 1280×800 screen shows more than 15), cells that do not wrap (the container
 * scrolls sideways on small screens instead), hover highlight. Give the table a caption or aria-label.
 */
export function TableContainer({
  className,
  label,
  children,
}: {
  className?: string;
  /** Names the container when it has to take focus to be scrolled (see useKeyboardScrollable). */
  label?: string;
  children: ReactNode;
}) {
  const scrollable = useKeyboardScrollable<HTMLDivElement>(label);
  // scroll-pt-8: an element focused inside stops below the sticky header row, not under it.
  return (
    <div
      ref={scrollable.ref}
      {...scrollable.props}
      className={cx("relative scroll-pt-8 overflow-auto rounded-lg border border-line bg-surface", className)}
    >
      {children}
    </div>
  );
}

export function Table({ className, ...props }: HTMLAttributes<HTMLTableElement>) {
  return (
    <table
      className={cx("w-full border-separate border-spacing-0 text-left text-sm", className)}
      {...props}
    />
  );
}

export function TableHead(props: HTMLAttributes<HTMLTableSectionElement>) {
  return <thead {...props} />;
}

export function TableBody(props: HTMLAttributes<HTMLTableSectionElement>) {
  return <tbody className="[&>tr:last-child>td]:border-b-0" {...props} />;
}

export function Tr({ className, ...props }: HTMLAttributes<HTMLTableRowElement>) {
  return <tr className={cx("hover:bg-surface-muted/60", className)} {...props} />;
}

interface CellProps {
  /** Right-aligned, tabular figures. */
  numeric?: boolean;
}

export function Th({ numeric, className, ...props }: ThHTMLAttributes<HTMLTableCellElement> & CellProps) {
  return (
    <th
      scope="col"
      className={cx(
        "sticky top-0 z-10 h-8 whitespace-nowrap border-b border-line bg-surface-muted px-3 text-xs font-medium text-fg-muted",
        numeric && "text-right",
        className,
      )}
      {...props}
    />
  );
}

export function Td({ numeric, className, ...props }: TdHTMLAttributes<HTMLTableCellElement> & CellProps) {
  return (
    <td
      className={cx(
        "h-8 whitespace-nowrap border-b border-line px-3 py-0.5 align-middle",
        numeric && "text-right tabular-nums",
        className,
      )}
      {...props}
    />
  );
}
