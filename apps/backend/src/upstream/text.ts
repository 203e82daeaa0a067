/**
 * Text that came from an upstream (Komodo, ntfy) is untrusted: it may carry terminal escapes,
 * control characters, bidirectional overrides that make a name read backwards, or megabytes of
 * output. Every such text is made safe once, where it enters, before it is stored, answered or
 * forwarded.
 */

/** The most characters one upstream text keeps; a longer one is cut and ends with "…". */
export const UPSTREAM_TEXT_LIMIT = 2_000;
/** The most characters one stage's output keeps (a whole run keeps 256 KiB: deploy/stage-logs.ts). */
export const LOG_TEXT_LIMIT = 256 * 1024;

/** Escape sequences: CSI (`ESC [ … final`, or the one-character C1 CSI), OSC (`ESC ] … BEL|ST`), and two-character escapes. */
const ESCAPE_SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]/g;

/** C0 controls but tab and newline, DEL, C1 controls, and the bidirectional marks, embeddings, overrides and isolates. */
const CONTROLS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Any character either cleaner changes; most texts have none and skip the replacing. */
const NEEDS_CLEANING =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const keep = (text: string) => text;

/**
 * Multi-line upstream text (a failure reason, a log): keeps tabs and line breaks. `redact` runs
 * before the cut, so that a secret is never left half visible at the end.
 */
export function cleanUpstreamText(
  text: string,
  redact = keep,
  limit = UPSTREAM_TEXT_LIMIT,
  cut: (text: string, limit: number) => string = limitLength,
): string {
  if (!NEEDS_CLEANING.test(text)) return cut(redact(text), limit);
  return cut(redact(stripControls(text.replace(/\r\n?/g, "\n"))), limit);
}

/** One-line upstream text (a name, an image, a state): tabs and line breaks become spaces. */
export function cleanUpstreamLabel(text: string, redact = keep): string {
  if (!NEEDS_CLEANING.test(text)) return limitLength(redact(text));
  return limitLength(redact(stripControls(text.replace(/[\t\n\r]+/g, " "))));
}

function stripControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, "").replace(CONTROLS, "");
}

/**
 * A long text's start and end, at most `limit` characters, the cut marked with "…": where a
 * failure says why, its first line names it and compose prints its error last.
 */
export function startAndEnd(text: string, limit = UPSTREAM_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  const head = limitLength(text, Math.floor(limit / 4));
  let start = text.length - (limit - head.length);
  const first = text.charCodeAt(start);
  if (first >= 0xdc00 && first <= 0xdfff) start += 1;
  return head + text.slice(start);
}

/** Cuts to at most `limit` characters without splitting a surrogate pair, marking the cut with "…". */
export function limitLength(text: string, limit = UPSTREAM_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  let end = limit - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
