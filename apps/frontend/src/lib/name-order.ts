/**
 * Alphabetical order without ICU where it can. The locale's order (`localeCompare`) needs ICU's
 * collation data, and its first use loads it: 9 ms in a page here (36 ms on Lighthouse's phone), and
 * 3 MiB kept for good by the server that renders the page (bench/RESULTS.md, issue 34).
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Ignoring case first, then lower case before upper: the alphabetical order of plain ASCII names. */
function compareAscii(a: string, b: string): number {
  const [lowerA, lowerB] = [a.toLowerCase(), b.toLowerCase()];
  if (lowerA !== lowerB) return lowerA < lowerB ? -1 : 1;
  return a === b ? 0 : a > b ? -1 : 1;
}

/**
 * How to sort these names alphabetically: names in plain ASCII, as Komodo's, images' and most
 * people's usually are, sort without ICU, nearly as the locale would (punctuation apart); any other
 * list in the locale's order.
 */
export const nameOrder = (names: readonly string[]) =>
  names.every((name) => PRINTABLE_ASCII.test(name))
    ? compareAscii
    : (a: string, b: string) => a.localeCompare(b);
