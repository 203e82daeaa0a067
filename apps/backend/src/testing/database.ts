import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../db/database.ts";
import { createTestDatabase, testPostgresServer } from "./postgres.ts";

/**
 * A fresh database for a test that uses services without a whole backend: SQLite in `directory`,
 * or, in the "postgres" test project, a new database on the test server.
 */
export async function openTestDatabase(directory: string, name = "db") {
  const server = testPostgresServer();
  return openDatabase(
    server
      ? { postgresUrl: await createTestDatabase(server) }
      : { sqlitePath: join(directory, `${name}.sqlite`) },
  );
}

/** Whether this run's tests are on PostgreSQL (the "postgres" test project). */
export const onPostgres = () => testPostgresServer() !== undefined;

/** Where harness.ts notes the PostgreSQL database of a test backend's data directory. */
export const databaseNoteOf = (dataDir: string) => join(dataDir, "test-database-url");

/** The environment that points a process (a command, another backend) at `dataDir`'s database. */
export function databaseEnvironmentOf(dataDir: string): Record<string, string> {
  const note = databaseNoteOf(dataDir);
  return existsSync(note)
    ? { DATA_DIR: dataDir, DATABASE_URL: readFileSync(note, "utf8") }
    : { DATA_DIR: dataDir };
}

/** The database a test backend over `dataDir` uses (harness.ts), opened on its own, e.g. while that backend is stopped. */
export function openDatabaseOfDataDir(dataDir: string) {
  const { DATABASE_URL } = databaseEnvironmentOf(dataDir);
  return openDatabase(
    DATABASE_URL ? { postgresUrl: DATABASE_URL } : { sqlitePath: join(dataDir, "db.sqlite") },
  );
}
