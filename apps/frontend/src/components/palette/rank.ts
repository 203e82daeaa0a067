/**
 * How well a palette item's name matches what was typed, pure so it can be tested: an exact name
 * beats a prefix, a prefix beats the start of a word, that beats text inside a word, and letters in
 * order with gaps ("ncld" for nextcloud) come last. Null: no match.
 */
export function matchScore(name: string, query: string): number | null {
  const text = name.toLowerCase();
  const typed = query.trim().toLowerCase();
  if (!typed) return 0;
  if (text === typed) return 1000;
  if (text.startsWith(typed)) return 800 - text.length;
  const wordStart = text.search(new RegExp(`(^|[\\s/:._+-])${escapeRegExp(typed)}`));
  if (wordStart >= 0) return 600 - wordStart - text.length / 100;
  const inside = text.indexOf(typed);
  if (inside >= 0) return 400 - inside - text.length / 100;
  return subsequenceScore(text, typed);
}

/** Every typed letter in order; fewer and shorter gaps score higher. */
function subsequenceScore(text: string, typed: string): number | null {
  let position = -1;
  let gaps = 0;
  for (const letter of typed) {
    const next = text.indexOf(letter, position + 1);
    if (next < 0) return null;
    if (position >= 0 && next > position + 1) gaps += next - position - 1;
    position = next;
  }
  return Math.max(1, 200 - gaps * 5 - text.length / 100);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export interface Rankable {
  /** Stable across visits: what the recent list remembers. */
  id: string;
  /** What the query is matched against. */
  name: string;
  /** Ties within the same match quality: lower comes first (pages before stacks before images…). */
  order: number;
}

/**
 * The items matching `query`, best first; the recently chosen ones (most recent first) lead among
 * equally good matches, and lead outright when nothing is typed.
 */
export function rankItems<Item extends Rankable>(
  items: readonly Item[],
  query: string,
  recent: readonly string[],
  limit = 50,
): Item[] {
  const recency = new Map(recent.map((id, index) => [id, index]));
  const scored: { item: Item; score: number; recent: number }[] = [];
  for (const item of items) {
    const score = matchScore(item.name, query);
    if (score === null) continue;
    scored.push({ item, score, recent: recency.get(item.id) ?? Number.POSITIVE_INFINITY });
  }
  const typed = query.trim() !== "";
  scored.sort((a, b) => {
    if (!typed) return a.recent - b.recent || a.item.order - b.item.order;
    // Whole match classes (exact, prefix, word start, inside, scattered) first, then recency, then score.
    const classA = Math.floor(a.score / 200);
    const classB = Math.floor(b.score / 200);
    return (
      classB - classA ||
      a.recent - b.recent ||
      b.score - a.score ||
      a.item.order - b.item.order ||
      a.item.name.localeCompare(b.item.name)
    );
  });
  return scored.slice(0, limit).map(({ item }) => item);
}

const RECENT_KEY = "sg_palette_recent";
const RECENT_MAX = 8;

export function loadRecent(): string[] {
  try {
    const value: unknown = JSON.parse(window.localStorage.getItem(RECENT_KEY) ?? "[]");
    return Array.isArray(value)
      ? value.filter((id): id is string => typeof id === "string").slice(0, RECENT_MAX)
      : [];
  } catch {
    return [];
  }
}

export function rememberRecent(id: string): void {
  try {
    const next = [id, ...loadRecent().filter((other) => other !== id)].slice(0, RECENT_MAX);
    window.localStorage.setItem(RECENT_KEY, JSON.stringify(next));
  } catch {
    // Without storage the palette simply has no recent items.
  }
}
