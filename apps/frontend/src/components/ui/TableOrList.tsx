import type { ReactNode } from "react";

/** The width from which the table shows (Tailwind's breakpoints: sm 640 px, lg 1024 px). */
type Breakpoint = "sm" | "lg";

// Whole class names, so that Tailwind finds them in the source.
const shown: Record<Breakpoint, { table: string; list: string }> = {
  sm: { table: "hidden sm:block", list: "sm:hidden" },
  lg: { table: "hidden lg:block", list: "lg:hidden" },
};

export interface TableOrListProps {
  /** The same rows twice: as a table for wide screens, and as a compact list for narrow ones. */
  table: ReactNode;
  list: ReactNode;
  from: Breakpoint;
}

/**
 * A table where there is room for one, a compact list otherwise, chosen by CSS: the server renders
 * both, so a phone never shows the table first and swaps it after hydration. The hidden one is
 * `display: none`, out of the accessibility tree (and of role queries).
 */
export function TableOrList({ table, list, from }: TableOrListProps) {
  return (
    <>
      <div className={shown[from].table}>{table}</div>
      <div className={shown[from].list}>{list}</div>
    </>
  );
}
