/**
 * Server side only: the stack list fetched while the page renders, handed to the island as a prop, so
 * the list shows right after hydration instead of after one more round trip from the browser. Anything
 * but a quick success gives null, and the browser asks (and reports errors) as usual.
 */
import { serverEnv } from "../../lib/server-env.ts";
import type { Stack } from "./model.ts";

/** Komodo answers a list in tens of milliseconds; never hold the page for a slow one. */
const SERVER_FETCH_TIMEOUT_MS = 1_500;

export interface InitialStacks {
  stacks: Stack[];
  /** When the server fetched them (epoch ms), so the browser knows how fresh they are. */
  fetchedAt: number;
}

export async function fetchStacksForPage(cookieHeader: string | null): Promise<InitialStacks | null> {
  if (!cookieHeader) return null;
  try {
    const response = await fetch(`${serverEnv.backendUrl}/api/v0/stacks`, {
      headers: { accept: "application/json", cookie: cookieHeader },
      signal: AbortSignal.timeout(SERVER_FETCH_TIMEOUT_MS),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return null;
    }
    const body = (await response.json()) as { stacks: Stack[] };
    return { stacks: body.stacks, fetchedAt: Date.now() };
  } catch {
    return null;
  }
}
