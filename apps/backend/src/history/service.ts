import { desc, gte, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { deployHistory } from "../db/schema.ts";
import type { Clock } from "../platform/clock.ts";

export type HistoryEntry = typeof deployHistory.$inferSelect;
export type NewHistoryEntry = typeof deployHistory.$inferInsert;

const HISTORY_LIMIT = 100;
const OVERVIEW_DAYS = 30;
const DAY_MS = 86_400_000;

interface Tally {
  total: number;
  succeeded: number;
  failed: number;
}

const emptyTally = (): Tally => ({ total: 0, succeeded: 0, failed: 0 });

function count(tally: Tally, success: boolean) {
  tally.total += 1;
  if (success) tally.succeeded += 1;
  else tally.failed += 1;
}

export function createHistoryService({ db, clock }: { db: Database; clock: Clock }) {
  const publicFields = ({ userId: _userId, startedAt: _startedAt, ...entry }: HistoryEntry) => entry;

  // Written by every deploy: prepared once.
  const insertEntry = db
    .insert(deployHistory)
    .values({
      id: sql.placeholder("id"),
      createdAt: sql.placeholder("createdAt"),
      startedAt: sql.placeholder("startedAt"),
      actor: sql.placeholder("actor"),
      via: sql.placeholder("via"),
      userId: sql.placeholder("userId"),
      stack: sql.placeholder("stack"),
      action: sql.placeholder("action"),
      success: sql.placeholder("success"),
      message: sql.placeholder("message"),
    })
    .prepare();

  return {
    record(entry: NewHistoryEntry) {
      insertEntry.run({ userId: null, ...entry });
    },

    /** The last 100 actions, newest first. */
    list() {
      return db
        .select()
        .from(deployHistory)
        .orderBy(desc(deployHistory.createdAt))
        .limit(HISTORY_LIMIT)
        .all()
        .map(publicFields);
    },

    /** The last 30 days (today included), per day (UTC) and per stack. */
    overview() {
      const today = Math.floor(clock.now() / DAY_MS) * DAY_MS;
      const since = new Date(today - (OVERVIEW_DAYS - 1) * DAY_MS);
      const entries = db
        .select()
        .from(deployHistory)
        .where(gte(deployHistory.createdAt, since))
        .orderBy(desc(deployHistory.createdAt))
        .all();

      const total = emptyTally();
      const perDay = new Map<string, Tally>();
      for (let day = 0; day < OVERVIEW_DAYS; day++) {
        perDay.set(new Date(since.getTime() + day * DAY_MS).toISOString().slice(0, 10), emptyTally());
      }
      const perStack = new Map<string, Tally & { lastAt: Date }>();
      for (const entry of entries) {
        count(total, entry.success);
        const day = perDay.get(entry.createdAt.toISOString().slice(0, 10));
        if (day) count(day, entry.success);
        let stack = perStack.get(entry.stack);
        if (!stack) {
          stack = { ...emptyTally(), lastAt: entry.createdAt };
          perStack.set(entry.stack, stack);
        }
        count(stack, entry.success);
      }

      return {
        since,
        ...total,
        successRate: total.total === 0 ? null : total.succeeded / total.total,
        perDay: [...perDay].map(([date, tally]) => ({ date, ...tally })),
        perStack: [...perStack]
          .map(([stack, tally]) => ({ stack, ...tally }))
          .sort((a, b) => b.failed - a.failed || b.total - a.total),
        recentFailures: entries
          .filter((entry) => !entry.success)
          .slice(0, 10)
          .map(publicFields),
      };
    },
  };
}

export type HistoryService = ReturnType<typeof createHistoryService>;
