import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../db/database.ts";
import { createTestDatabase, TEST_POSTGRES_URL } from "./postgres.ts";

/**
 * A fresh database for a test that uses services without a whole backend: SQLite in `directory`,
 * or, in the "postgres" test project, a new database on the test server.
 */
export async function openTestDatabase(directory: string, name = "db") {
  const server = process.env[TEST_POSTGRES_URL];
  return openDatabase(
    server
      ? { postgresUrl: await createTestDatabase(server) }
      : { sqlitePath: join(directory, `${name}.sqlite`) },
  );
}

/** Whether this run's tests are on PostgreSQL (the "postgres" test project). */
export const onPostgres = () => process.env[TEST_POSTGRES_URL] !== undefined;

/** The database a test backend over `dataDir` uses (harness.ts), opened on its own, e.g. while that backend is stopped. */
export function openDatabaseOfDataDir(dataDir: string) {
  const note = join(dataDir, "test-database-url");
  return openDatabase(
    existsSync(note)
      ? { postgresUrl: readFileSync(note, "utf8") }
      : { sqlitePath: join(dataDir, "db.sqlite") },
  );
}
