import type { ReactNode } from "react";
import { SortIcon } from "../icons.tsx";
import { Th } from "./Table.tsx";

export type SortDirection = "ascending" | "descending";

export interface SortableThProps {
  children: ReactNode;
  /** This column's direction when the table is sorted by it; undefined when sorted by another. */
  direction: SortDirection | undefined;
  onSort: () => void;
  numeric?: boolean;
}

/** A column header that sorts the table: a button inside the header cell, which carries aria-sort. */
export function SortableTh({ children, direction, onSort, numeric }: SortableThProps) {
  return (
    <Th numeric={numeric} aria-sort={direction ?? "none"}>
      <button
        type="button"
        onClick={onSort}
        className="-mx-1 inline-flex items-center gap-1 rounded px-1 font-medium hover:text-fg"
      >
        {children}
        <SortIcon direction={direction ?? "none"} className="size-3" />
      </button>
    </Th>
  );
}
