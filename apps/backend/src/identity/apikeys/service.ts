import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Role } from "@stackgate/contract";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Actor, AuditService } from "../../audit/service.ts";
import type { Database } from "../../db/database.ts";
import { apiKey, user } from "../../db/schema.ts";
import { createWriteBehind } from "../../db/write-behind.ts";
import type { Clock } from "../../platform/clock.ts";
import { type KeyScope, normalScope } from "./scope.ts";

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
  ownerEmail: string;
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

export function createApiKeyService({
  db,
  clock,
  audit,
}: {
  db: Database;
  clock: Clock;
  audit: AuditService;
}) {
  const summaryColumns = {
    id: apiKey.id,
    name: apiKey.name,
    start: apiKey.start,
    createdAt: apiKey.createdAt,
    lastUsedAt: apiKey.lastUsedAt,
    scope: apiKey.scope,
    expiresAt: apiKey.expiresAt,
  };

  // Every pipeline request looks its key up, with its owner's role now, in one query. The inner join also drops a key whose owner is gone: a user
  // deleted with foreign keys off (by hand, a restore) leaves keys behind.
  const selectByHash = db.prepare("apikeys_select_by_hash", (q) =>
    q
      .select({
        keyId: apiKey.id,
        keyName: apiKey.name,
        userId: apiKey.userId,
        scope: apiKey.scope,
        expiresAt: apiKey.expiresAt,
        ownerEmail: user.email,
        ownerRole: user.role,
        ownerDisabled: user.disabled,
      })
      .from(apiKey)
      .innerJoin(user, eq(user.id, apiKey.userId))
      .where(eq(apiKey.keyHash, sql.placeholder("keyHash"))),
  );
  const findByHash = async (keyHash: string) => (await selectByHash.execute({ keyHash }))[0];

  // A failed write is retried on the next round; a deleted key's update simply matches nothing.
  const lastUses = createWriteBehind<Date>({
    everyMs: LAST_USED_FLUSH_MS,
    write: (entries) =>
      db.transaction(async (tx) => {
        for (const [keyId, lastUsedAt] of entries)
          await tx.update(apiKey).set({ lastUsedAt }).where(eq(apiKey.id, keyId));
      }),
  });

  return {
    async list(userId: string) {
      const keys = await db
        .select(summaryColumns)
        .from(apiKey)
        .where(eq(apiKey.userId, userId))
        .orderBy(desc(apiKey.createdAt));
      return keys.map((key) => ({ ...key, lastUsedAt: lastUses.get(key.id) ?? key.lastUsedAt }));
    },

    /**
     * Creates a key for `by` (a person) unless they hold `atMost` keys already (then null); the
     * audit records its name, id and scope, never the key.
     */
    async create(
      by: Actor & { id: string },
      { name, scope, expiresAt }: NewKey,
      { atMost }: { atMost: number },
    ) {
      const key = KEY_PREFIX + randomBytes(32).toString("base64url");
      const created = await db.transaction(async (tx) => {
        // Touching the owner's row first makes a second creation by the same person wait for this
        // one to commit before it counts (PostgreSQL locks the row; SQLite writes one at a time).
        await tx.update(user).set({ id: by.id }).where(eq(user.id, by.id));
        if ((await tx.$count(apiKey, eq(apiKey.userId, by.id))) >= atMost) return null;
        const [row] = await tx
          .insert(apiKey)
          .values({
            id: randomUUID(),
            userId: by.id,
            name,
            start: key.slice(0, VISIBLE_CHARACTERS),
            keyHash: hashKey(key),
            createdAt: new Date(clock.now()),
            scope: scope ? normalScope(scope) : null,
            expiresAt: expiresAt ?? null,
          })
          .returning(summaryColumns);
        if (!row) throw new Error("the new API key was not stored");
        await audit.recordChange(
          {
            by,
            action: "apikey.created",
            target: name,
            detail: { id: row.id, scope: row.scope, expiresAt: row.expiresAt?.toISOString() ?? null },
          },
          tx,
        );
        return row;
      });
      return created && { ...created, key };
    },

    /** Deletes one of `by`'s keys; false when the id is not theirs. */
    remove(by: Actor & { id: string }, id: string) {
      return db.transaction(async (tx) => {
        const [deleted] = await tx
          .delete(apiKey)
          .where(and(eq(apiKey.id, id), eq(apiKey.userId, by.id)))
          .returning({ id: apiKey.id, name: apiKey.name });
        if (deleted)
          await audit.recordChange(
            { by, action: "apikey.deleted", target: deleted.name, detail: { id } },
            tx,
          );
        return deleted !== undefined;
      });
    },

    /** The key's owner and scope, whether it expired, or null for an unknown or revoked key. */
    async verify(key: string): Promise<KeyCheck | null> {
      if (!key.startsWith(KEY_PREFIX)) return null;
      const found = await findByHash(hashKey(key));
      if (!found) return null;
      const { expiresAt, ...owner } = found;
      if (expiresAt && expiresAt.getTime() <= clock.now()) return { kind: "expired", expiresAt };
      lastUses.set(found.keyId, new Date(clock.now()));
      return { kind: "valid", owner };
    },

    /** Writes the key uses not written yet. */
    close() {
      return lastUses.close();
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
