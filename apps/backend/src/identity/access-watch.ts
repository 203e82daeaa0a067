import { and, eq, gt, inArray, isNull, or } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { apiKey, session, user } from "../db/schema.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/logger.ts";
import type { Caller } from "./caller.ts";

/** How often the credentials behind open streams are checked: a stream ends within a second of its access. */
const CHECK_EVERY_MS = 250;
/** Credentials asked about per query (SQLite and PostgreSQL both cap a statement's parameters). */
const CHUNK = 500;

interface Watched {
  via: Caller["via"];
  id: string;
  lost: Set<() => void>;
}

const credentialOf = (caller: Caller) =>
  caller.via === "session"
    ? { via: caller.via, id: caller.sessionId }
    : { via: caller.via, id: caller.keyId };

/**
 * Ends what a caller holds open (event streams) once their access is gone: the person disabled or
 * deleted, the session revoked, signed out or expired, the key revoked or expired, or its owner
 * disabled. The database is the truth, so a change made by another backend or by
 * `npm run reset-password` counts too. The credentials of every open stream are checked together,
 * one query per kind, four times a second while any stream is open.
 */
export function createAccessWatch({ db, clock, logger }: { db: Database; clock: Clock; logger: Logger }) {
  const watched = new Map<string, Watched>();
  let timer: NodeJS.Timeout | undefined;
  let checking = false;

  const ids = (via: Caller["via"]) =>
    [...watched.values()].filter((entry) => entry.via === via).map((entry) => entry.id);

  async function stillValid(via: Caller["via"], all: string[]): Promise<Set<string>> {
    const now = new Date(clock.now());
    const valid = new Set<string>();
    for (let start = 0; start < all.length; start += CHUNK) {
      const chunk = all.slice(start, start + CHUNK);
      const rows =
        via === "session"
          ? await db
              .select({ id: session.id })
              .from(session)
              .innerJoin(user, eq(user.id, session.userId))
              .where(and(inArray(session.id, chunk), eq(user.disabled, false), gt(session.expiresAt, now)))
          : await db
              .select({ id: apiKey.id })
              .from(apiKey)
              .innerJoin(user, eq(user.id, apiKey.userId))
              .where(
                and(
                  inArray(apiKey.id, chunk),
                  eq(user.disabled, false),
                  or(isNull(apiKey.expiresAt), gt(apiKey.expiresAt, now)),
                ),
              );
      for (const row of rows) valid.add(row.id);
    }
    return valid;
  }

  async function check() {
    if (checking) return;
    checking = true;
    try {
      for (const via of ["session", "apiKey"] as const) {
        const asked = ids(via);
        if (asked.length === 0) continue;
        const valid = await stillValid(via, asked);
        for (const id of asked) {
          if (valid.has(id)) continue;
          const entry = watched.get(`${via}:${id}`);
          watched.delete(`${via}:${id}`);
          for (const end of entry?.lost ?? []) end();
        }
      }
    } catch (error) {
      // A database that does not answer tells nothing about access: the streams go on, and the next round asks again.
      logger.debug({ err: error }, "open streams' access not checked this round");
    } finally {
      checking = false;
      if (watched.size === 0) stop();
    }
  }

  function stop() {
    clearInterval(timer);
    timer = undefined;
  }

  return {
    /** Calls `onLost` once when the caller's access ends; the returned function stops watching. */
    watch(caller: Caller, onLost: () => void): () => void {
      const { via, id } = credentialOf(caller);
      const key = `${via}:${id}`;
      let entry = watched.get(key);
      if (!entry) {
        entry = { via, id, lost: new Set() };
        watched.set(key, entry);
      }
      entry.lost.add(onLost);
      timer ??= setInterval(() => void check(), CHECK_EVERY_MS).unref();
      return () => {
        const current = watched.get(key);
        current?.lost.delete(onLost);
        if (current?.lost.size === 0) watched.delete(key);
        if (watched.size === 0) stop();
      };
    },
    close: stop,
  };
}

export type AccessWatch = ReturnType<typeof createAccessWatch>;
