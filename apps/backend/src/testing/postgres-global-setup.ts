import { type PostgresServer, startPostgres, TEST_POSTGRES_URL } from "./postgres.ts";

/**
 * The "postgres" test project's global set-up: one throw-away PostgreSQL server for the whole run;
 * every backend a test starts gets a new database on it (harness.ts). The workers read its URL from
 * the environment, which they inherit, since vitest starts them after this.
 */
let server: PostgresServer | undefined;

export async function setup() {
  server = await startPostgres();
  process.env[TEST_POSTGRES_URL] = server.adminUrl;
}

export function teardown() {
  server?.remove();
}
