/**
 * Orders texts by their UTF-16 code units, as `<` does. Not `localeCompare`: its first call loads
 * ICU's collation data into the process, 3 MiB of memory kept for good (bench/RESULTS.md, issue 34),
 * for texts that need no language's order (image names, advisory ids, package names).
 */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
