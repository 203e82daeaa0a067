/** Edit distance: the insertions, deletions and substitutions that turn `a` into `b`. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The names closest to a mistyped one, nearest first (at most three): those within a third of its
 * length in edits (at least two), and those that contain it or that it contains. Undefined stays
 * undefined (the names are not known).
 */
export function nearestNames(typed: string, names: string[] | undefined): string[] | undefined {
  if (!names) return undefined;
  const wanted = typed.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  return names
    .map((name) => {
      const lower = name.toLowerCase();
      const close = lower.includes(wanted) || (lower.length >= 3 && wanted.includes(lower));
      return { name, score: close ? 0 : distance(wanted, lower) };
    })
    .filter(({ score }) => score <= limit)
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, 3)
    .map(({ name }) => name);
}
