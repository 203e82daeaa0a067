/**
 * Server side only: the stack list fetched while the page renders, handed to the island as a prop, so
 * the list shows right after hydration instead of after one more round trip from the browser. Anything
 * but a quick success gives null, and the browser asks (and reports errors) as usual.
 */
import { createORPCClient } from "@orpc/client";
import type { ApiClient } from "./api.ts";
import type { InitialStacks } from "./queries.ts";
import { serverEnv } from "./server-env.ts";

/** Komodo answers a list in tens of milliseconds; never hold the page for a slow one. */
const SERVER_FETCH_TIMEOUT_MS = 1_500;

/** The typed client, straight to the backend, as the person whose browser asked for the page. */
export function clientFor(cookieHeader: string): ApiClient {
  return createORPCClient(serverEnv.backends.rpcLink({ cookie: cookieHeader }));
}

export async function fetchStacksForPage(cookieHeader: string | null): Promise<InitialStacks | null> {
  if (!cookieHeader) return null;
  try {
    const list = await clientFor(cookieHeader).stacks.list(undefined, {
      signal: AbortSignal.timeout(SERVER_FETCH_TIMEOUT_MS),
    });
    return { json: JSON.stringify(list), fetchedAt: Date.now() };
  } catch {
    return null;
  }
}
