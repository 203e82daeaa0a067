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

/**
 * Why a read (or a deploy) failed, for a reader: the network, no Komodo connection (503), the ended
 * session (401), Komodo's reason (502), or the server's answer with its status.
 */
export function describeLoadError(error: unknown, t: Translate): string {
  const status = errorStatus(error);
  if (status === undefined) return t("stacks.load.unreachable");
  if (status === 503) return t("stacks.load.noConnection.hint");
  if (status === 401) return t("stacks.load.signedOut");
  if (status === 502) return t("stacks.load.komodoRefused", { reason: errorMessage(error) });
  return t("stacks.load.failed", { status, reason: errorMessage(error) });
}
