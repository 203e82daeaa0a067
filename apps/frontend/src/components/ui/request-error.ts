import { ORPCError } from "@orpc/client";

/** The HTTP status of a failed API call; undefined when no answer came (network down, aborted). */
export function errorStatus(error: unknown): number | undefined {
  return error instanceof ORPCError ? error.status : undefined;
}

/** The server's own reason for a failed call (for 502/504: Komodo's words), or the browser's. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * For TanStack Query's `retry`: try once more only when no answer came at all. An answer such as 503
 * (no connection) or 502 (Komodo's refusal) will not change by asking again at once.
 */
export function retryWithoutAnswer(failureCount: number, error: unknown): boolean {
  return failureCount < 1 && errorStatus(error) === undefined;
}

/**
 * For reads of Komodo data (stack list, scans): like `retryWithoutAnswer`, and also once after a 502,
 * which is as often a connection dropped on the way (the gateway answers 502 too) as Komodo's refusal.
 * A real outage is shown a second later, with its reason.
 */
export function retryUpstreamRead(failureCount: number, error: unknown): boolean {
  return retryWithoutAnswer(failureCount, error) || (failureCount < 1 && errorStatus(error) === 502);
}
