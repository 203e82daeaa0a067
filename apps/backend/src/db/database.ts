import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import Sqlite from "better-sqlite3";
import { sql, type Table } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { migrate as migrateSqlite } from "drizzle-orm/better-sqlite3/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/node-postgres";
import { migrate as migratePostgres } from "drizzle-orm/node-postgres/migrator";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import pg from "pg";
import { databaseUnreachable } from "./outage.ts";
import * as schema from "./schema.ts";

/**
 * Everything a feature stores goes through this one interface, whichever engine holds the data.
 * Queries are drizzle's builders over the tables in schema.ts, always awaited (never `.get()`,
 * `.all()` or `.run()`, which only SQLite has). On PostgreSQL, drizzle's PostgreSQL dialect builds
 * the SQL from those same table objects (it reads their columns, not their dialect);
 * schema.postgres.ts declares the same tables in PostgreSQL's types for its migrations, and
 * schema.test.ts holds the two to the same columns.
 */
type Queries = BaseSQLiteDatabase<"async", unknown, typeof schema>;

/** Reads and writes that land together or not at all. */
export type Transaction = Pick<
  Queries,
  "select" | "selectDistinct" | "insert" | "update" | "delete" | "$count"
>;

export interface TransactionOptions {
  /**
   * Transactions naming the same turn run one after another, on every backend of the database: for
   * a check over rows that concurrent transactions may be changing, such as "the last active
   * admin" (under PostgreSQL's READ COMMITTED, two such transactions would each see the other's
   * row unchanged). On SQLite every transaction already takes its turn.
   */
  turn?: string;
}

/** A query builder that can be prepared: drizzle's select, insert, update and delete. */
interface Preparable<Result> {
  prepare(): { execute(values?: Record<string, unknown>): PromiseLike<Result> };
}

/**
 * A placeholder of the same name for each of these columns of `table`, for an insert's values or an
 * update's `set`: drizzle encodes each by its column in both, but types placeholders for inserts only
 * (hence `never`, which fits any column).
 */
export const placeholders = <T extends Table, Column extends keyof T["$inferInsert"] & string>(
  _table: T,
  columns: Column[],
) => Object.fromEntries(columns.map((column) => [column, sql.placeholder(column)])) as Record<Column, never>;

/** A query with `sql.placeholder(name)` where its values go, run with them. */
export interface PreparedQuery<Result> {
  /** Runs it with these values; a write runs in `tx`, its transaction. */
  execute(values: Record<string, unknown>, tx?: Transaction): Promise<Result>;
}

/**
 * Reads run directly; every write runs in `transaction`: on SQLite, one connection serves the
 * whole process, so writes take turns there (a transaction held open across an `await` would
 * otherwise take in another request's writes, and lose them if it rolled back).
 */
export interface Database extends Pick<Queries, "select" | "selectDistinct" | "$count"> {
  transaction<T>(work: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * For the queries every deploy runs: drizzle builds a query's SQL anew each time it runs, which
   * cost a deploy more CPU than anything else (bench/RESULTS.md). On SQLite the query `build`
   * returns is built and prepared once; on PostgreSQL it is built in each call's transaction and
   * sent as the statement `name`, which the server parses once per connection.
   */
  prepare<Result>(name: string, build: (q: Transaction) => Preparable<Result>): PreparedQuery<Result>;
}

export interface OpenedDatabase {
  db: Database;
  /** What Better Auth stores its people, sessions and accounts through. */
  authAdapter: ReturnType<typeof drizzleAdapter>;
  /** Called once start-up's writes are done (SQLite then waits for another process's lock only briefly). */
  serving(): void;
  close(): Promise<void>;
}

/** Where the data lives: `DATABASE_URL` (PostgreSQL) when set, else an SQLite file under DATA_DIR. */
export type DatabaseLocation = { postgresUrl: string } | { sqlitePath: string };

const authSchema = {
  user: schema.user,
  session: schema.session,
  account: schema.account,
  verification: schema.verification,
};

/** Opens the database and applies the committed migrations of its engine. */
export async function openDatabase(location: DatabaseLocation): Promise<OpenedDatabase> {
  return "postgresUrl" in location ? openPostgres(location.postgresUrl) : openSqlite(location.sqlitePath);
}

// --- SQLite -----------------------------------------------------------------------------------------

/** At start, waiting for another process's lock costs nobody anything: be patient. */
const STARTUP_BUSY_TIMEOUT_MS = 5000;
/**
 * While serving, better-sqlite3 waits for a lock synchronously, with the whole event loop: a
 * write meeting another process's lock gives up after this long and is answered 503.
 */
const SERVING_BUSY_TIMEOUT_MS = 200;

/** Distinct statements kept prepared; the queries Stackgate builds number a few hundred. */
export const PREPARED_STATEMENTS = 1000;

/**
 * drizzle prepares every query's SQL afresh, each time it runs: SQLite then parses and plans the
 * same text again (9 % of a deploy's CPU in the backend, bench/RESULTS.md). Statements are kept by
 * their text instead. A kept statement is handed back in its default mode, since drizzle
 * switches some to `raw()` (rows as arrays) and others not.
 */
export function keepStatementsPrepared(sqlite: Sqlite.Database): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const kept = new Map<string, Sqlite.Statement>();
  sqlite.prepare = ((source: string) => {
    const statement = kept.get(source);
    if (statement) return statement.reader ? statement.raw(false) : statement;
    const prepared = prepare(source);
    if (kept.size >= PREPARED_STATEMENTS) kept.delete(kept.keys().next().value as string);
    kept.set(source, prepared);
    return prepared;
  }) as typeof sqlite.prepare;
}

function openSqlite(path: string): OpenedDatabase {
  mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Sqlite(path, { timeout: STARTUP_BUSY_TIMEOUT_MS });
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  keepStatementsPrepared(sqlite);
  const begin = sqlite.prepare("BEGIN IMMEDIATE");
  const commit = sqlite.prepare("COMMIT");
  const rollback = sqlite.prepare("ROLLBACK");
  const orm = drizzleSqlite(sqlite, { schema });
  migrateSqlite(orm, { migrationsFolder: join(import.meta.dirname, "migrations") });
  const queries = orm as unknown as Queries;

  let turn: Promise<unknown> = Promise.resolve();
  async function transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const previous = turn;
    let done!: () => void;
    turn = new Promise<void>((resolve) => {
      done = resolve;
    });
    await previous;
    try {
      begin.run();
      try {
        const result = await work(queries);
        commit.run();
        return result;
      } catch (error) {
        if (sqlite.inTransaction) rollback.run();
        throw error;
      }
    } finally {
      done();
    }
  }

  function prepare<Result>(name: string, build: (q: Transaction) => Preparable<Result>) {
    let prepared: ReturnType<Preparable<Result>["prepare"]> | undefined;
    return {
      async execute(values: Record<string, unknown>, tx?: Transaction) {
        prepared ??= build(queries).prepare();
        if (!tx && !(prepared as { stmt?: Sqlite.Statement }).stmt?.reader)
          throw new Error(`the prepared write '${name}' runs outside a transaction`);
        return prepared.execute(values);
      },
    };
  }

  return {
    db: {
      select: queries.select.bind(queries),
      selectDistinct: queries.selectDistinct.bind(queries),
      $count: queries.$count.bind(queries),
      transaction,
      prepare,
    },
    authAdapter: drizzleAdapter(orm, { provider: "sqlite", schema: authSchema }),
    serving: () => void sqlite.pragma(`busy_timeout = ${SERVING_BUSY_TIMEOUT_MS}`),
    close: async () => void sqlite.close(),
  };
}

// --- PostgreSQL -------------------------------------------------------------------------------------

/** Any constant: every Stackgate backend starting on this database waits on it to migrate. */
const MIGRATION_LOCK = 7_326_001;
/** The first key of the two-key advisory locks that make transactions take turns (the second: the turn's name, hashed). */
const TURN_LOCKS = 7_326;
const POOL_SIZE = 10;

// Timestamps are stored as milliseconds in bigint columns; node-postgres reads bigint as a string,
// and the schema's columns turn numbers, not strings, into dates. Milliseconds stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, Number);

async function openPostgres(url: string): Promise<OpenedDatabase> {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // A query that waits this long for a lock or a busy server is answered 503, like a locked SQLite file.
    query_timeout: 10_000,
    application_name: "stackgate",
  });
  // An idle connection the server closed (a restart, a failover) is replaced on the next query;
  // without a listener, its error would end the process.
  pool.on("error", () => {});
  const client = await pool.connect().catch((error: unknown) => {
    throw databaseUnreachable(error, url);
  });
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await migratePostgres(drizzlePostgres(client), {
      migrationsFolder: join(import.meta.dirname, "postgres-migrations"),
    });
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }

  const orm = drizzlePostgres(pool);
  const queries = orm as unknown as Queries;
  return {
    db: {
      select: queries.select.bind(queries),
      selectDistinct: queries.selectDistinct.bind(queries),
      $count: queries.$count.bind(queries),
      transaction: (work, options) =>
        orm.transaction(async (tx) => {
          // Released when the transaction ends, whether it commits or rolls back.
          if (options?.turn)
            await tx.execute(sql`SELECT pg_advisory_xact_lock(${TURN_LOCKS}, hashtext(${options.turn}))`);
          return work(tx as unknown as Transaction);
        }),
      prepare: <Result>(name: string, build: (q: Transaction) => Preparable<Result>) => ({
        async execute(values: Record<string, unknown>, tx?: Transaction) {
          const query = build(tx ?? queries) as unknown as {
            prepare(name: string): { execute(values: Record<string, unknown>): Promise<Result> };
          };
          return query.prepare(name).execute(values);
        },
      }),
    },
    authAdapter: drizzleAdapter(orm, { provider: "pg", schema: authSchema }),
    serving: () => {},
    close: async () => {
      if (!pool.ended) await pool.end();
    },
  };
}
