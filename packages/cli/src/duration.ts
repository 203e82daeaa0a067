const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * A duration as pipelines write it: `90s`, `15m`, `1h30m`, `500ms`, or a bare number of seconds.
 * Undefined when the text is not one.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1_000;
  if (!/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, , unit] of trimmed.matchAll(/(\d+(\.\d+)?)(ms|h|m|s)/g))
    total += Number(amount) * UNIT_MS[unit];
  return total;
}

/** Elapsed time as `m:ss` (or `h:mm:ss`). */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1_000));
  const hours = Math.floor(seconds / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}
