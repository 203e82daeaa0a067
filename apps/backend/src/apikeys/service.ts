import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Role } from "@stackgate/contract";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { apiKey, user } from "../db/schema.ts";
import { createWriteBehind } from "../db/write-behind.ts";
import type { Clock } from "../platform/clock.ts";
import type { KeyScope } from "./scope.ts";

const KEY_PREFIX = "sg_";
const VISIBLE_CHARACTERS = 9;
/**
 * Key uses are noted in memory and written together this often, off the request path: a
 * pipeline request never waits for (or fails on) a write, even when the database is locked or full.
 */
const LAST_USED_FLUSH_MS = 5000;

export interface KeyOwner {
  keyId: string;
  keyName: string;
  userId: string;
  /** Null: the full rights of an API key. */
  scope: KeyScope | null;
  /** The owner's role and whether they are disabled, as they are now: a key never has more rights than its owner. */
  ownerRole: Role;
  ownerDisabled: boolean;
}

export type KeyCheck = { kind: "valid"; owner: KeyOwner } | { kind: "expired"; expiresAt: Date };

export interface NewKey {
  name: string;
  scope?: KeyScope;
  expiresAt?: Date;
}

const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

export function createApiKeyService({ db, clock }: { db: Database; clock: Clock }) {
  const summaryColumns = {
    id: apiKey.id,
    name: apiKey.name,
    start: apiKey.start,
    createdAt: apiKey.createdAt,
    lastUsedAt: apiKey.lastUsedAt,
    scope: apiKey.scope,
    expiresAt: apiKey.expiresAt,
  };

  // Every pipeline request looks its key up, with its owner's role now, in one query: prepared once,
  // not built and prepared per request. The inner join also drops a key whose owner is gone: a user
  // deleted with foreign keys off (by hand, a restore) leaves keys behind.
  const findByHash = db
    .select({
      keyId: apiKey.id,
      keyName: apiKey.name,
      userId: apiKey.userId,
      scope: apiKey.scope,
      expiresAt: apiKey.expiresAt,
      ownerRole: user.role,
      ownerDisabled: user.disabled,
    })
    .from(apiKey)
    .innerJoin(user, eq(user.id, apiKey.userId))
    .where(eq(apiKey.keyHash, sql.placeholder("keyHash")))
    .prepare();

  const setLastUsed = db
    .update(apiKey)
    .set({ lastUsedAt: sql`${sql.placeholder("lastUsedAt")}` })
    .where(eq(apiKey.id, sql.placeholder("keyId")))
    .prepare();

  // A failed write is retried on the next round; a deleted key's update simply matches nothing.
  const lastUses = createWriteBehind<Date>({
    everyMs: LAST_USED_FLUSH_MS,
    write: (entries) =>
      db.transaction(() => {
        for (const [keyId, usedAt] of entries) setLastUsed.run({ keyId, lastUsedAt: usedAt.getTime() });
      }),
  });

  return {
    list(userId: string) {
      return db
        .select(summaryColumns)
        .from(apiKey)
        .where(eq(apiKey.userId, userId))
        .orderBy(desc(apiKey.createdAt))
        .all()
        .map((key) => ({ ...key, lastUsedAt: lastUses.get(key.id) ?? key.lastUsedAt }));
    },

    create(userId: string, { name, scope, expiresAt }: NewKey) {
      const key = KEY_PREFIX + randomBytes(32).toString("base64url");
      const created = db
        .insert(apiKey)
        .values({
          id: randomUUID(),
          userId,
          name,
          start: key.slice(0, VISIBLE_CHARACTERS),
          keyHash: hashKey(key),
          createdAt: new Date(clock.now()),
          scope: scope ?? null,
          expiresAt: expiresAt ?? null,
        })
        .returning(summaryColumns)
        .get();
      return { ...created, key };
    },

    /** Deletes one of the user's keys; false when the id is not theirs. */
    remove(userId: string, id: string) {
      const deleted = db
        .delete(apiKey)
        .where(and(eq(apiKey.id, id), eq(apiKey.userId, userId)))
        .returning({ id: apiKey.id })
        .all();
      return deleted.length > 0;
    },

    /** The key's owner and scope, whether it expired, or null for an unknown or revoked key. */
    verify(key: string): KeyCheck | null {
      if (!key.startsWith(KEY_PREFIX)) return null;
      const found = findByHash.get({ keyHash: hashKey(key) });
      if (!found) return null;
      const { expiresAt, ...owner } = found;
      if (expiresAt && expiresAt.getTime() <= clock.now()) return { kind: "expired", expiresAt };
      lastUses.set(found.keyId, new Date(clock.now()));
      return { kind: "valid", owner };
    },

    /** Writes the key uses not written yet. */
    close() {
      lastUses.close();
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
