import { type Cluster, singleBackend } from "../../db/cluster.ts";
import type { Clock } from "../../platform/clock.ts";

export interface SignInLimits {
  /** Failed sign-ins one account may have within the window before it is locked. */
  failuresPerAccount: number;
  /** Failed sign-ins one client address may have within the window, over all accounts. */
  failuresPerAddress: number;
  windowMs: number;
}

/** Why and until when a sign-in is refused. */
export interface Lockout {
  scope: "account" | "address";
  retryAfterMs: number;
}

/** Bounds the memory a flood of made-up emails or addresses can take. */
const MAX_TRACKED_NAMES = 100_000;

/**
 * The times of recent failures per name, within a sliding window. A name is locked once it holds
 * `limit` failures, until the oldest of them leaves the window.
 */
function createFailureLog(limit: number, windowMs: number, clock: Clock) {
  const failures = new Map<string, number[]>();

  const recent = (name: string) => {
    const times = failures.get(name);
    if (!times) return [];
    const since = clock.now() - windowMs;
    while (times.length > 0 && times[0]! <= since) times.shift();
    if (times.length === 0) failures.delete(name);
    return times;
  };

  const makeRoom = () => {
    for (const name of failures.keys()) recent(name);
    // Still full of live entries: forget the names that failed first (a Map keeps insertion order).
    for (const name of failures.keys()) {
      if (failures.size < MAX_TRACKED_NAMES) break;
      failures.delete(name);
    }
  };

  return {
    /** Milliseconds until `name` may try again, or 0. */
    retryAfterMs(name: string): number {
      const times = recent(name);
      if (times.length < limit) return 0;
      return times[times.length - limit]! + windowMs - clock.now();
    },
    record(name: string) {
      const times = recent(name);
      if (times.length === 0) {
        if (failures.size >= MAX_TRACKED_NAMES) makeRoom();
        failures.set(name, times);
      }
      times.push(clock.now());
      // Only the newest `limit` failures decide a lockout.
      if (times.length > limit) times.shift();
    },
    forget(name: string) {
      failures.delete(name);
    },
  };
}

const FAILED = "sign-in-failed";
const SUCCEEDED = "sign-in-succeeded";

/**
 * Counts failed sign-ins per account (email) and per client address. Only failures count, so
 * people who type their password right are never slowed down; a success clears its account's
 * failures but not its address's, or one known account would let an address guess others freely.
 */
export function createSignInLimiter({
  limits,
  clock,
  cluster = singleBackend,
}: {
  limits: SignInLimits;
  clock: Clock;
  /** With several backends, each tells the others its failures and successes: the limits count them all. */
  cluster?: Cluster;
}) {
  const byAccount = createFailureLog(limits.failuresPerAccount, limits.windowMs, clock);
  const byAddress = createFailureLog(limits.failuresPerAddress, limits.windowMs, clock);
  const accountName = (email: string) => email.trim().toLowerCase();
  const recordFailure = (email: string, address: string) => {
    byAccount.record(accountName(email));
    byAddress.record(address);
  };
  cluster.subscribe(FAILED, (body) => {
    const { email, address } = body as { email: string; address: string };
    recordFailure(email, address);
  });
  cluster.subscribe(SUCCEEDED, (body) => byAccount.forget(accountName((body as { email: string }).email)));

  return {
    /** The lockout that refuses this attempt, or null when it may go ahead. */
    check(email: string, address: string): Lockout | null {
      const account = byAccount.retryAfterMs(accountName(email));
      const fromAddress = byAddress.retryAfterMs(address);
      if (account === 0 && fromAddress === 0) return null;
      return account >= fromAddress
        ? { scope: "account", retryAfterMs: account }
        : { scope: "address", retryAfterMs: fromAddress };
    },
    failed(email: string, address: string) {
      recordFailure(email, address);
      cluster.publish(FAILED, { email, address });
    },
    succeeded(email: string) {
      byAccount.forget(accountName(email));
      cluster.publish(SUCCEEDED, { email });
    },
  };
}

export type SignInLimiter = ReturnType<typeof createSignInLimiter>;

/**
 * The client's address as the gateway saw it. The gateway appends the address of whoever
 * connected to it to X-Forwarded-For, so the last entry is the only one it vouches for; with
 * TRUST_PROXY one reverse proxy in front of the gateway is trusted, and its entry (the one
 * before) names the client. The backend is reachable only by the gateway, so a request without
 * the header was made on this machine or inside the container network.
 */
export function clientAddress(headers: Headers, trustProxy: boolean): string {
  const chain = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const fromProxy = trustProxy && chain.length >= 2 ? chain[chain.length - 2] : undefined;
  return fromProxy ?? chain.at(-1) ?? "local";
}

/** "3 minutes", "45 seconds": when a locked-out person may try again. */
export function describeWait(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}
