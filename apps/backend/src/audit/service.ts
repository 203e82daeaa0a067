import { randomUUID } from "node:crypto";
import { HISTORY_PAGE_LIMIT, type HistoryPosition } from "@stackgate/contract";
import { desc, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { auditLog } from "../db/schema.ts";
import type { Clock } from "../platform/clock.ts";

/**
 * Who made a change: their id (null for the system, or someone unknown), their name as the history
 * names callers, their email, and the API key's id when a key acted.
 */
export interface Actor {
  id: string | null;
  name: string;
  email?: string | null;
  keyId?: string | null;
}

/** One change to record. `detail` says what changed and must never hold a secret. */
export interface Change {
  by: Actor;
  /** `<area>.<what happened>`, e.g. `user.role-changed`. */
  action: string;
  /** What was changed: an email, a stack, a key's name. */
  target: string | null;
  detail?: Record<string, unknown> | null;
}

export function createAuditService({ db, clock }: { db: Database; clock: Clock }) {
  // Ids that sort as they were written within one moment, so a change and its consequences (a
  // disabling, then the sessions it ended) list in the order they happened, newest first.
  let lastAt = 0;
  let sameMoment = 0;
  const idAt = (at: number) => {
    sameMoment = at === lastAt ? sameMoment + 1 : 0;
    lastAt = at;
    return `${at.toString(36).padStart(9, "0")}${sameMoment.toString(36).padStart(4, "0")}-${randomUUID()}`;
  };
  return {
    /**
     * Records one change. Pass the transaction the change itself is written in, so that both are
     * written or neither; a change outside our database (Komodo's) is recorded once it succeeded.
     */
    async recordChange({ by, action, target, detail = null }: Change, tx?: Transaction) {
      const at = clock.now();
      const write = (into: Transaction) =>
        into.insert(auditLog).values({
          id: idAt(at),
          at: new Date(at),
          actorId: by.id,
          actor: by.name,
          actorEmail: by.email ?? null,
          keyId: by.keyId ?? null,
          action,
          target,
          detail,
        });
      await (tx ? write(tx) : db.transaction(write));
    },

    /** One page of the log, newest first, older than `after`; `next` is where the following page starts. */
    async list({ limit = HISTORY_PAGE_LIMIT, after }: { limit?: number; after?: HistoryPosition }) {
      const rows = await db
        .select()
        .from(auditLog)
        .where(after && sql`(${auditLog.at}, ${auditLog.id}) < (${after.createdAt.getTime()}, ${after.id})`)
        .orderBy(desc(auditLog.at), desc(auditLog.id))
        .limit(limit + 1);
      const entries = rows.slice(0, limit).map(({ actorId, actorEmail, keyId, ...entry }) => ({
        ...entry,
        by: { userId: actorId, email: actorEmail, keyId },
      }));
      const last = entries.at(-1);
      return {
        entries,
        next: rows.length > limit && last ? { createdAt: last.at, id: last.id } : undefined,
      };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
