import { HISTORY_PAGE_LIMIT, type HistoryFilters, type HistoryPosition } from "@stackgate/contract";
import { and, desc, eq, gte, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { deployHistory } from "../db/schema.ts";
import { createWriteBehind } from "../db/write-behind.ts";
import type { StackVisibility } from "../identity/apikeys/scope.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/logger.ts";

export type HistoryEntry = typeof deployHistory.$inferSelect;
export type NewHistoryEntry = typeof deployHistory.$inferInsert;
/** An action about to reach Komodo: everything but its outcome. */
export type StartedEntry = Omit<NewHistoryEntry, "createdAt" | "success" | "message" | "running">;
export interface Outcome {
  success: boolean;
  message: string;
  finishedAt: Date;
}

export const INTERRUPTED_MESSAGE = "interrupted: the service stopped before this action finished";
/** An outcome the database would not take is written again this often, until it lands. */
const FINISH_RETRY_MS = 2000;

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

/**
 * Only finished actions are shown: the specification's history entry carries its outcome
 * (`success`), and the actions still running are what the live event stream's `subscribed`
 * lists. A running row is the durable promise that the action ends up here either way.
 */
const finished = eq(deployHistory.running, false);

/**
 * Entries on the stacks `visible` admits: all, or those matching one of a scoped key's patterns.
 * Patterns hold only letters, digits and `._-*?`, which glob() reads as the key scope means them
 * (SQLite's own function; the PostgreSQL migrations define the same). `|| ''` keeps SQLite from
 * reading these through the stack index and sorting what it finds: the rows are read in the
 * list's order and these checked on the way (see `matchesFilters`).
 */
const onStacks = ({ patterns }: StackVisibility): SQL | undefined =>
  patterns === null
    ? undefined
    : (or(...patterns.map((pattern) => sql`glob(${pattern}, ${deployHistory.stack} || '')`)) ?? sql`false`);

/** Which page of the history to read: narrowed by the filters, older than `after`, `limit` entries. */
export interface HistoryPageQuery extends HistoryFilters {
  after?: HistoryPosition;
  limit?: number;
}

/** Entries after `position` in the list's order (createdAt, then id, newest first). */
const olderThan = ({ createdAt, id }: HistoryPosition): SQL =>
  sql`(${deployHistory.createdAt}, ${deployHistory.id}) < (${createdAt.getTime()}, ${id})`;

/**
 * The filters as SQL. Each page is read from an index that holds the rows in the list's order
 * (createdAt, id), so a page reads only its own rows and nothing is sorted: the index of the first
 * filter given among stack, actor and outcome (the most selective first), or the plain one. The
 * other filters are checked on those rows; wrapping their column in coalesce() keeps SQLite, which
 * has no statistics to choose by, from picking one of them instead.
 */
function matchesFilters({ stack, actor, via, outcome }: HistoryFilters): SQL | undefined {
  const success = outcome === undefined ? undefined : outcome === "success";
  const indexed = stack !== undefined ? "stack" : actor !== undefined ? "actor" : "success";
  const term = (name: "stack" | "actor" | "success", value: string | boolean | undefined) => {
    if (value === undefined) return undefined;
    const column = deployHistory[name];
    return name === indexed
      ? eq(column, value)
      : sql`coalesce(${column}, ${column}) = ${sql.param(value, column)}`;
  };
  return and(
    term("stack", stack),
    term("actor", actor),
    term("success", success),
    via === undefined ? undefined : eq(deployHistory.via, via),
  );
}

/** The query of one history page, newest first (exported so a test can check its plan uses an index). */
export function selectPage(
  db: Database,
  { after, limit = HISTORY_PAGE_LIMIT, ...filters }: HistoryPageQuery,
  visible: StackVisibility,
) {
  return db
    .select()
    .from(deployHistory)
    .where(and(finished, onStacks(visible), matchesFilters(filters), after && olderThan(after)))
    .orderBy(desc(deployHistory.createdAt), desc(deployHistory.id))
    .limit(limit);
}

export function createHistoryService({
  db,
  clock,
  logger,
  runner = null,
}: {
  db: Database;
  clock: Clock;
  logger?: Logger;
  /** This backend's id (db/cluster.ts), noted on the actions it runs. */
  runner?: string | null;
}) {
  const publicFields = ({
    userId,
    actorEmail,
    keyId,
    startedAt: _startedAt,
    running: _running,
    runner: _runner,
    ...entry
  }: HistoryEntry) => ({ ...entry, by: { userId, email: actorEmail, keyId } });

  const writeOutcome = (tx: Transaction, id: string, { success, message, finishedAt }: Outcome) =>
    tx
      .update(deployHistory)
      .set({ running: false, success, message, createdAt: finishedAt })
      .where(and(eq(deployHistory.id, id), eq(deployHistory.running, true)));

  const unwrittenOutcomes = createWriteBehind<Outcome>({
    everyMs: FINISH_RETRY_MS,
    write: (entries) =>
      db.transaction(async (tx) => {
        for (const [id, outcome] of entries) await writeOutcome(tx, id, outcome);
      }),
    onError: (error, pending) =>
      logger?.warn({ err: error, pending }, "finished actions not yet in the history; retrying"),
  });

  return {
    /** Records a finished action in one go. */
    async record(entry: Omit<NewHistoryEntry, "running">) {
      await db.transaction((tx) =>
        tx.insert(deployHistory).values({ userId: null, ...entry, running: false }),
      );
    },

    /**
     * Records an action as running, before it is sent anywhere, in `tx` when given (to land with
     * other writes); throws when the database will not take it.
     */
    async begin(entry: StartedEntry, tx?: Transaction) {
      const write = (into: Transaction) =>
        into.insert(deployHistory).values({
          userId: null,
          ...entry,
          createdAt: entry.startedAt,
          success: false,
          message: "running",
          running: true,
          runner,
        });
      await (tx ? write(tx) : db.transaction(write));
    },

    /**
     * Records a begun action's outcome. Never throws: when the database will not take it now,
     * it is kept and written again every few seconds until it does.
     */
    async finish(id: string, outcome: Outcome) {
      try {
        await db.transaction((tx) => writeOutcome(tx, id, outcome));
      } catch (error) {
        logger?.warn({ err: error, id }, "finished action not yet in the history; retrying");
        unwrittenOutcomes.set(id, outcome);
      }
    },

    /**
     * Marks the actions left running by backends that are gone (a crash, a kill) as failed, and
     * returns them; those of backends still running them are left alone.
     */
    async failInterrupted(isGone: (runner: string | null) => Promise<boolean>): Promise<HistoryEntry[]> {
      const runners = await db
        .selectDistinct({ runner: deployHistory.runner })
        .from(deployHistory)
        .where(eq(deployHistory.running, true));
      const gone: (string | null)[] = [];
      for (const { runner } of runners) if (await isGone(runner)) gone.push(runner);
      if (gone.length === 0) return [];
      const named = gone.filter((runner): runner is string => runner !== null);
      return db.transaction((tx) =>
        tx
          .update(deployHistory)
          .set({
            running: false,
            success: false,
            message: INTERRUPTED_MESSAGE,
            createdAt: new Date(clock.now()),
            runner: null,
          })
          .where(
            and(
              eq(deployHistory.running, true),
              or(
                named.length > 0 ? inArray(deployHistory.runner, named) : undefined,
                gone.includes(null) ? isNull(deployHistory.runner) : undefined,
              ),
            ),
          )
          .returning(),
      );
    },

    /** Writes the outcomes still held back, one last try. */
    close() {
      return unwrittenOutcomes.close();
    },

    /**
     * One page of the history, newest first: by default the last 100 actions, on the stacks
     * `visible` admits. `next` is where the following, older page starts;
     * null when nothing older is left. Entries recorded meanwhile are newer, so they never shift it.
     */
    async list(
      { after, limit = HISTORY_PAGE_LIMIT, ...filters }: HistoryPageQuery,
      visible: StackVisibility,
    ) {
      // One more than asked: whether it exists tells if an older page does.
      const rows = await selectPage(db, { ...filters, after, limit: limit + 1 }, visible);
      const entries = rows.slice(0, limit);
      const last = entries.at(-1);
      return {
        entries: entries.map(publicFields),
        next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null,
      };
    },

    /** The last 30 days (today included), per day (UTC) and per stack, on the stacks `visible` admits. */
    async overview(visible: StackVisibility) {
      const today = Math.floor(clock.now() / DAY_MS) * DAY_MS;
      const since = new Date(today - (OVERVIEW_DAYS - 1) * DAY_MS);
      const entries = await db
        .select()
        .from(deployHistory)
        .where(and(finished, gte(deployHistory.createdAt, since), onStacks(visible)))
        .orderBy(desc(deployHistory.createdAt));

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
