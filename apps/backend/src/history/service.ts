import {
  HISTORY_PAGE_LIMIT,
  type HistoryFilters,
  type HistoryPosition,
  type runSettle,
} from "@stackgate/contract";
import { and, desc, eq, gte, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import type { z } from "zod";
import { type Database, placeholders, type Transaction } from "../db/database.ts";
import { deployChange, deployHistory, deployLog } from "../db/schema.ts";
import { createWriteBehind } from "../db/write-behind.ts";
import { type RunLog, revivedStages, storedStages } from "../deploy/stage-logs.ts";
import { type CommitChange, changedWhatRuns, type ServiceChange } from "../deploy/versions.ts";
import type { StackVisibility } from "../identity/apikeys/scope.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/logger.ts";

export type HistoryEntry = typeof deployHistory.$inferSelect;
export type NewHistoryEntry = typeof deployHistory.$inferInsert;
/** An action about to reach Komodo: who asked what, and when. */
export type StartedEntry = Pick<NewHistoryEntry, "id" | "startedAt" | "actor" | "via" | "stack" | "action"> &
  Partial<Pick<NewHistoryEntry, "userId" | "actorEmail" | "keyId">>;
export type RunSettle = z.infer<typeof runSettle>;

/** What a run changed, whether it stayed up, and what Komodo printed: recorded with its outcome. */
export interface RunDetails {
  stack: string;
  changes: ServiceChange[];
  commit: CommitChange | null;
  settle: RunSettle;
  log: RunLog;
}

export interface Outcome {
  success: boolean;
  message: string;
  finishedAt: Date;
  details?: RunDetails;
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
  unstable: number;
}

const emptyTally = (): Tally => ({ total: 0, succeeded: 0, failed: 0, unstable: 0 });

function count(tally: Tally, { success, settleState }: Pick<HistoryEntry, "success" | "settleState">) {
  tally.total += 1;
  if (success) tally.succeeded += 1;
  else tally.failed += 1;
  if (settleState === "unstable") tally.unstable += 1;
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
function matchesFilters({ stack, actor, via, outcome, image }: HistoryFilters): SQL | undefined {
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
    image === undefined ? undefined : changedImage(image),
  );
}

/** The deploys that changed what runs of `image` (deploy_change: `changed`). */
const changedImage = (image: string): SQL =>
  sql`exists (select 1 from ${deployChange} where ${deployChange.runId} = ${deployHistory.id} and ${deployChange.image} = ${image} and ${deployChange.changed})`;

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
  /** An entry as the API shows it; `changes` are its deploy_change rows (`changesOf`). */
  const publicFields = (
    {
      userId,
      actorEmail,
      keyId,
      startedAt: _startedAt,
      running: _running,
      runner: _runner,
      step: _step,
      komodoUpdates: _komodoUpdates,
      commitFrom,
      commitTo,
      commitMessage,
      settleState,
      settleReason,
      settleUntil,
      ...entry
    }: HistoryEntry,
    changes: ServiceChange[],
  ) => ({
    ...entry,
    by: { userId, email: actorEmail, keyId },
    changes,
    commit:
      commitFrom === null && commitTo === null
        ? null
        : { from: commitFrom, to: commitTo, message: commitMessage },
    settle: settleState === null ? null : { state: settleState, reason: settleReason, until: settleUntil },
  });

  /** The changes of these runs, by run. */
  async function changesOf(ids: string[]): Promise<Map<string, ServiceChange[]>> {
    const byRun = new Map<string, ServiceChange[]>();
    if (ids.length === 0) return byRun;
    const rows = await db
      .select()
      .from(deployChange)
      .where(inArray(deployChange.runId, ids))
      .orderBy(deployChange.runId, deployChange.service);
    for (const { runId, service, image, fromDigest, toDigest } of rows) {
      const list = byRun.get(runId) ?? [];
      list.push({ service, image, from: fromDigest, to: toDigest });
      byRun.set(runId, list);
    }
    return byRun;
  }

  const withChanges = async (entries: HistoryEntry[]) => {
    const changes = await changesOf(entries.map((entry) => entry.id));
    return entries.map((entry) => publicFields(entry, changes.get(entry.id) ?? []));
  };

  const settleColumns = (settle: RunSettle) => ({
    settleState: settle.state,
    settleReason: settle.reason,
    settleUntil: settle.until,
  });

  // What every deploy writes, prepared (db/database.ts): its running row, its outcome, its changes and stages.
  const insertRunning = db.prepare("history_insert_running", (q) =>
    q.insert(deployHistory).values({
      ...placeholders(deployHistory, [
        "id",
        "startedAt",
        "actor",
        "via",
        "userId",
        "actorEmail",
        "keyId",
        "stack",
        "action",
        "runner",
      ]),
      createdAt: sql.placeholder("startedAt"),
      success: false,
      message: "running",
      running: true,
    }),
  );
  const updateOutcome = db.prepare("history_update_outcome", (q) =>
    q
      .update(deployHistory)
      .set({
        ...placeholders(deployHistory, [
          "success",
          "message",
          "commitFrom",
          "commitTo",
          "commitMessage",
          "settleState",
          "settleReason",
          "createdAt",
        ]),
        running: false,
        // In milliseconds, as both engines store it: drizzle encodes a placeholder's null as a date.
        settleUntil: sql`${sql.placeholder("settleUntilMs")}`,
      })
      .where(and(eq(deployHistory.id, sql.placeholder("id")), eq(deployHistory.running, true)))
      .returning({ id: deployHistory.id }),
  );
  const insertChange = db.prepare("history_insert_change", (q) =>
    q
      .insert(deployChange)
      .values(
        placeholders(deployChange, [
          "runId",
          "stack",
          "service",
          "image",
          "fromDigest",
          "toDigest",
          "changed",
        ]),
      ),
  );
  const upsertLog = db.prepare("history_upsert_log", (q) =>
    q
      .insert(deployLog)
      .values(placeholders(deployLog, ["runId", "stages", "truncated"]))
      .onConflictDoUpdate({ target: deployLog.runId, set: placeholders(deployLog, ["stages", "truncated"]) }),
  );

  /** Writes a run's changes; `replacing` those it has (a run's first changes land with its outcome). */
  async function writeChanges(
    tx: Transaction,
    id: string,
    stack: string,
    changes: ServiceChange[],
    { replacing = true } = {},
  ) {
    if (replacing) await tx.delete(deployChange).where(eq(deployChange.runId, id));
    for (const change of changes)
      await insertChange.execute(
        {
          runId: id,
          stack,
          service: change.service,
          image: change.image,
          fromDigest: change.from,
          toDigest: change.to,
          changed: changedWhatRuns(change),
        },
        tx,
      );
  }

  async function writeLog(tx: Transaction, id: string, { stages, truncated }: RunLog) {
    await upsertLog.execute({ runId: id, stages: storedStages(stages), truncated }, tx);
  }

  /** Ends a running row: its outcome, with what the run changed and printed. Nothing when it ended already. */
  async function writeOutcome(
    tx: Transaction,
    id: string,
    { success, message, finishedAt, details }: Outcome,
  ) {
    const commit = details?.commit;
    const settle = details?.settle;
    const written = await updateOutcome.execute(
      {
        id,
        success,
        message,
        // A finished entry's createdAt is its end: the list's order.
        createdAt: finishedAt,
        commitFrom: commit?.from ?? null,
        commitTo: commit?.to ?? null,
        commitMessage: commit?.message ?? null,
        settleState: settle?.state ?? null,
        settleReason: settle?.reason ?? null,
        settleUntilMs: settle?.until?.getTime() ?? null,
      },
      tx,
    );
    if (written.length === 0 || !details) return;
    await writeChanges(tx, id, details.stack, details.changes, { replacing: false });
    if (details.log.stages.length > 0) await writeLog(tx, id, details.log);
  }

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
        insertRunning.execute({ userId: null, actorEmail: null, keyId: null, ...entry, runner }, into);
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

    /** Keeps the stages of a running action's steps so far (those of its last step land with its outcome). */
    async saveLog(id: string, log: RunLog) {
      await db.transaction((tx) => writeLog(tx, id, log));
    },

    /** A run's stages, as kept; undefined when it kept none. */
    async logOf(id: string): Promise<RunLog | undefined> {
      const [row] = await db.select().from(deployLog).where(eq(deployLog.runId, id));
      return row && { stages: revivedStages(row.stages), truncated: row.truncated };
    },

    /** How a watched deploy ended (`changes`: what its services ran once it settled, when read). */
    async settled(id: string, stack: string, settle: RunSettle, changes?: ServiceChange[]) {
      await db.transaction(async (tx) => {
        await tx.update(deployHistory).set(settleColumns(settle)).where(eq(deployHistory.id, id));
        if (changes) await writeChanges(tx, id, stack, changes);
      });
    },

    /**
     * The finished actions whose settle window is open and whose backend is gone (a crash, a kill,
     * a restart), taken over by this one (`runner`): it watches them to their end.
     */
    async adoptOpenWindows(isGone: (runner: string | null) => Promise<boolean>): Promise<HistoryEntry[]> {
      const open = await db
        .select({ id: deployHistory.id, runner: deployHistory.runner })
        .from(deployHistory)
        .where(and(eq(deployHistory.running, false), eq(deployHistory.settleState, "watching")));
      const ids: string[] = [];
      for (const entry of open)
        if (entry.runner !== runner && (await isGone(entry.runner))) ids.push(entry.id);
      if (ids.length === 0) return [];
      return db.transaction((tx) =>
        tx
          .update(deployHistory)
          .set({ runner })
          .where(and(inArray(deployHistory.id, ids), eq(deployHistory.settleState, "watching")))
          .returning(),
      );
    },

    /** The changes of these entries (for runs), by run id. */
    changesOf,

    /**
     * For each service running `digest`, the last deploy recorded here that brought it (changed
     * what the service ran to that digest): since when it runs, and from which run.
     */
    async broughtBy(stack: string, running: { service: string; digest: string | null }[]) {
      const digests = running
        .map((each) => each.digest)
        .filter((digest): digest is string => digest !== null);
      const found = new Map<string, { since: Date; runId: string }>();
      if (digests.length === 0) return found;
      const rows = await db
        .select({
          service: deployChange.service,
          digest: deployChange.toDigest,
          runId: deployChange.runId,
          at: deployHistory.createdAt,
        })
        .from(deployChange)
        .innerJoin(deployHistory, eq(deployHistory.id, deployChange.runId))
        .where(
          and(
            eq(deployChange.stack, stack),
            eq(deployChange.changed, true),
            inArray(deployChange.toDigest, digests),
          ),
        )
        .orderBy(desc(deployHistory.createdAt));
      for (const { service, digest } of running) {
        const row = rows.find((each) => each.service === service && each.digest === digest);
        if (row) found.set(service, { since: row.at, runId: row.runId });
      }
      return found;
    },

    /**
     * Takes over the actions left running by backends that are gone (a crash, a kill, this one's
     * previous run): they are this backend's (`runner`) from now on, still running, for it to learn
     * their real end (deploy/service.ts). Those of backends still running them are left alone; of two
     * backends taking over at once, each row goes to one.
     */
    async adoptInterrupted(isGone: (runner: string | null) => Promise<boolean>): Promise<HistoryEntry[]> {
      const runners = await db
        .selectDistinct({ runner: deployHistory.runner })
        .from(deployHistory)
        .where(eq(deployHistory.running, true));
      const gone: (string | null)[] = [];
      for (const entry of runners)
        if (entry.runner !== runner && (await isGone(entry.runner))) gone.push(entry.runner);
      if (gone.length === 0) return [];
      const named = gone.filter((each): each is string => each !== null);
      return db.transaction((tx) =>
        tx
          .update(deployHistory)
          .set({ runner })
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
        entries: await withChanges(entries),
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
        count(total, entry);
        const day = perDay.get(entry.createdAt.toISOString().slice(0, 10));
        if (day) count(day, entry);
        let stack = perStack.get(entry.stack);
        if (!stack) {
          stack = { ...emptyTally(), lastAt: entry.createdAt };
          perStack.set(entry.stack, stack);
        }
        count(stack, entry);
      }

      return {
        since,
        ...total,
        successRate: total.total === 0 ? null : total.succeeded / total.total,
        perDay: [...perDay].map(([date, tally]) => ({ date, ...tally })),
        perStack: [...perStack]
          .map(([stack, tally]) => ({ stack, ...tally }))
          .sort((a, b) => b.failed - a.failed || b.total - a.total),
        recentFailures: await withChanges(entries.filter((entry) => !entry.success).slice(0, 10)),
      };
    },
  };
}

export type HistoryService = ReturnType<typeof createHistoryService>;
