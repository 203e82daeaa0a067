import type { KomodoUpdate } from "./answers.ts";
import { startAndEnd } from "./text.ts";

export function isComplete(update: KomodoUpdate): boolean {
  return update.status === "Complete";
}

/**
 * Why a completed Update failed: the stderr (else stdout) of its last failed log stage, without the
 * HTML markup Komodo puts around "ERROR"/"TRACE" labels, or a generic sentence when there is none.
 * Compose's progress comes first on stderr and its error last, so a long output keeps both ends.
 */
export function failedUpdateReason(update: KomodoUpdate): string {
  const failed = update.logs.filter((entry) => !entry.success).at(-1);
  const output = failed ? stripMarkup(failed.stderr) || stripMarkup(failed.stdout) : "";
  return startAndEnd(output) || `Komodo reported ${update.operation} as failed without saying why`;
}

function stripMarkup(text: string): string {
  return text
    .replace(/<\/?span[^>]*>/g, "")
    .trim()
    .replace(/^ERROR: /, "");
}
