import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import Sqlite from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema.ts";

const migrationsFolder = join(import.meta.dirname, "migrations");

/** At start, waiting for another process's lock costs nobody anything: be patient. */
const STARTUP_BUSY_TIMEOUT_MS = 5000;
/**
 * While serving, better-sqlite3 waits for a lock synchronously, with the whole event loop: a
 * write meeting another process's lock gives up after this long and is answered 503.
 */
const SERVING_BUSY_TIMEOUT_MS = 200;

/**
 * Opens the SQLite file (WAL, patient busy timeout) and applies the committed migrations. Call
 * `serving()` once start-up's writes are done: from then on a lock is waited for only briefly.
 */
export function openDatabase(path: string) {
  mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Sqlite(path, { timeout: STARTUP_BUSY_TIMEOUT_MS });
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder });
  return {
    db,
    serving: () => void sqlite.pragma(`busy_timeout = ${SERVING_BUSY_TIMEOUT_MS}`),
    close: () => sqlite.close(),
  };
}

export type Database = ReturnType<typeof openDatabase>["db"];
