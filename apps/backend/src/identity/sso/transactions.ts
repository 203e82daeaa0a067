import { randomBytes } from "node:crypto";
import type { Clock } from "../../platform/clock.ts";

/** How long a person has at the provider between leaving Stackgate and coming back. */
export const TRANSACTION_TTL_MS = 10 * 60_000;
const MAX_PENDING = 10_000;

export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** A path on this site, checked before it was stored. */
  returnTo: string;
  invitation: string | undefined;
  /** The random value of the browser's HttpOnly cookie: the transaction belongs to that browser only. */
  browserBinding: string;
  startedAt: number;
}

/**
 * Sign-ins that left for the provider, kept server-side by their `state`. Taking one removes it,
 * so a replayed callback (the same state a second time) finds nothing and is refused.
 */
export function createPendingSignIns(clock: Clock) {
  const pending = new Map<string, PendingSignIn>();

  const dropExpired = () => {
    const oldest = clock.now() - TRANSACTION_TTL_MS;
    for (const [state, entry] of pending) if (entry.startedAt <= oldest) pending.delete(state);
  };

  return {
    add(entry: Omit<PendingSignIn, "browserBinding" | "startedAt">): PendingSignIn {
      dropExpired();
      // A flood of starts must not grow memory without end: the oldest unfinished ones go first.
      for (const state of pending.keys()) {
        if (pending.size < MAX_PENDING) break;
        pending.delete(state);
      }
      const stored = {
        ...entry,
        browserBinding: randomBytes(24).toString("base64url"),
        startedAt: clock.now(),
      };
      pending.set(entry.state, stored);
      return stored;
    },
    /** The sign-in this state and cookie started, removed from the store; null when unknown, expired or another browser's. */
    take(state: string, browserBinding: string | undefined): PendingSignIn | null {
      const entry = pending.get(state);
      if (!entry) return null;
      pending.delete(state);
      if (entry.startedAt <= clock.now() - TRANSACTION_TTL_MS) return null;
      if (!browserBinding || entry.browserBinding !== browserBinding) return null;
      return entry;
    },
  };
}

export type PendingSignIns = ReturnType<typeof createPendingSignIns>;
