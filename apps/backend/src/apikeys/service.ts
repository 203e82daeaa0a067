import { createHash, randomBytes, randomUUID } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { apiKey } from "../db/schema.ts";
import type { Clock } from "../platform/clock.ts";

const KEY_PREFIX = "sg_";
const VISIBLE_CHARACTERS = 9;
/** Recording every use would cost a write per pipeline request; once a minute is precise enough. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface KeyOwner {
  keyId: string;
  keyName: string;
  userId: string;
}

const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

export function createApiKeyService({ db, clock }: { db: Database; clock: Clock }) {
  const summaryColumns = {
    id: apiKey.id,
    name: apiKey.name,
    start: apiKey.start,
    createdAt: apiKey.createdAt,
    lastUsedAt: apiKey.lastUsedAt,
  };

  // Every pipeline request looks its key up: prepared once, not built and prepared per request. A
  // key whose owner is deleted goes with them (foreign key, on delete cascade), so no join is needed.
  const findByHash = db
    .select({ keyId: apiKey.id, keyName: apiKey.name, userId: apiKey.userId, lastUsedAt: apiKey.lastUsedAt })
    .from(apiKey)
    .where(eq(apiKey.keyHash, sql.placeholder("keyHash")))
    .prepare();

  return {
    list(userId: string) {
      return db
        .select(summaryColumns)
        .from(apiKey)
        .where(eq(apiKey.userId, userId))
        .orderBy(desc(apiKey.createdAt))
        .all();
    },

    create(userId: string, name: string) {
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

    /** The key's owner, or null for an unknown or revoked key. */
    verify(key: string): KeyOwner | null {
      if (!key.startsWith(KEY_PREFIX)) return null;
      const found = findByHash.get({ keyHash: hashKey(key) });
      if (!found) return null;
      const now = clock.now();
      if (!found.lastUsedAt || now - found.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
        db.update(apiKey)
          .set({ lastUsedAt: new Date(now) })
          .where(eq(apiKey.id, found.keyId))
          .run();
      }
      return { keyId: found.keyId, keyName: found.keyName, userId: found.userId };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
