import { printable } from "./exit.ts";

/** Rows as aligned columns under a header, for people reading a terminal or a CI log. */
export function table(header: string[], rows: string[][]): string {
  const cells = [header, ...rows.map((row) => row.map(printable))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? "").length)));
  return cells
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column])))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
