import { CliError, EXIT, printable } from "./exit.ts";

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

/** The longest a Node.js timer waits (2^31-1 ms, about 24.8 days); a longer one fires at once. */
export const LONGEST_WAIT_MS = 2 ** 31 - 1;

/**
 * The duration `--option` holds, or a usage error naming the option: not a duration, zero where
 * waiting is the point, or longer than the CLI can wait.
 */
export function durationOption(
  option: string,
  text: string,
  { examples, zero }: { examples: string; zero: "allowed" | "refused" },
): number {
  const ms = parseDuration(text);
  if (ms === undefined || (ms === 0 && zero === "refused"))
    throw new CliError(
      `--${option} must be a duration such as ${examples} (got '${printable(text)}')`,
      EXIT.usage,
    );
  if (ms > LONGEST_WAIT_MS)
    throw new CliError(
      `--${option} can be at most 596h31m (2^31-1 ms, about 24.8 days: the longest the CLI can wait); got '${printable(text)}'`,
      EXIT.usage,
    );
  return ms;
}

/** Elapsed time as `m:ss` (or `h:mm:ss`). */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1_000));
  const hours = Math.floor(seconds / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}
