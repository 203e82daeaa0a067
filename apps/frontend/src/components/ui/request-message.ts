import type { Translate } from "../../lib/i18n.ts";
import { errorMessage, errorStatus } from "./request-error.ts";

/**
 * A failed request in words for the reader: the backend's own message when it answered (it names
 * the field, or gives Komodo's reason), or that the server could not be reached at all (the browser's
 * "Failed to fetch" says nothing useful).
 */
export function requestMessage(error: unknown, t: Translate): string {
  if (errorStatus(error) !== undefined) return errorMessage(error);
  // The shell's sentence for an unreachable backend fits every request, not only sign-in.
  return t("signIn.unreachable");
}
