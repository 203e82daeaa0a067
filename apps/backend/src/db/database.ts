import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import Sqlite from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema.ts";

const migrationsFolder = join(import.meta.dirname, "migrations");

/** Opens the SQLite file (WAL, busy timeout) and applies the committed migrations. */
export function openDatabase(path: string) {
  mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Sqlite(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder });
  return { db, close: () => sqlite.close() };
}

export type Database = ReturnType<typeof openDatabase>["db"];
