import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { type KomodoSimulator, startKomodoSimulator } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onPostgres } from "../testing/database.ts";
import { ADMIN, startTestBackend, type TestBackend } from "../testing/harness.ts";
import { createTestDatabase, testPostgresServer } from "../testing/postgres.ts";

const run = promisify(execFile);
const command = join(import.meta.dirname, "copy-to-postgres.ts");

/** The README's command, as an operator runs it: the backend's environment, and DATABASE_URL. */
const copy = (dataDir: string, databaseUrl: string) =>
  run(process.execPath, [command], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
  }).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: "" }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

describe.skipIf(!onPostgres())("moving from SQLite to PostgreSQL", () => {
  let komodo: KomodoSimulator;
  let sqlite: TestBackend;
  let key: string;
  let deployId: string;
  beforeAll(async () => {
    komodo = await startKomodoSimulator({ stacks: [{ name: "web", state: "running" }] });
    // DATABASE_URL empty: SQLite under DATA_DIR, as before the move.
    sqlite = await startTestBackend({ env: { DATABASE_URL: "" } });
    const cookie = await sqlite.signIn();
    await sqlite.connectKomodo(cookie, komodo);
    ({ key } = await sqlite.createApiKey(cookie, "nightly"));
    const deployed = await sqlite.request("/api/v0/deploy", {
      method: "POST",
      headers: { "x-api-key": key },
      json: { stack: "web", action: "pull" },
    });
    expect(deployed.status).toBe(200);
    deployId = (await sqlite.request("/api/v0/history", { headers: { cookie } })).json.history[0].id;
    await sqlite.close({ keepData: true });
  });
  afterAll(async () => {
    await komodo?.close();
  });

  it("copies every row into an empty PostgreSQL, and the backend there carries on where SQLite stopped", async () => {
    const target = await createTestDatabase(testPostgresServer()!);
    const copied = await copy(sqlite.dataDir, target);
    expect(copied.code).toBe(0);
    expect(copied.stdout).toMatch(/deploy_history +1 rows/);
    expect(copied.stdout).toMatch(/api_key +1 rows/);
    expect(copied.stdout).toMatch(/upstream_connection +1 rows/);
    expect(copied.stdout).not.toContain(komodo.secret);

    const moved = await startTestBackend({ dataDir: sqlite.dataDir, env: { DATABASE_URL: target } });
    try {
      // The same password, key, connection (its sealed secret opens) and history.
      const cookie = await moved.signIn(ADMIN.email, ADMIN.password);
      const history = await moved.request("/api/v0/history", { headers: { "x-api-key": key } });
      expect(history.status).toBe(200);
      expect(history.json.history.map((entry: { id: string }) => entry.id)).toEqual([deployId]);
      const stacks = await moved.request("/api/v0/stacks", { headers: { cookie } });
      expect(stacks.status).toBe(200);
      expect(stacks.json.stacks.length).toBeGreaterThan(0);
    } finally {
      await moved.close({ keepData: true });
    }

    // A second copy into the same database is refused and changes nothing.
    const again = await copy(sqlite.dataDir, target);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toMatch(
      /^DATABASE_URL: the PostgreSQL database is not empty \(its user table has \d+ rows\)/,
    );
  });

  it("refuses a DATABASE_URL that is not PostgreSQL, naming it, with the configuration-error code", async () => {
    const refused = await copy(sqlite.dataDir, "mysql://somewhere/stackgate");
    expect(refused.code).toBe(78);
    expect(refused.stderr).toMatch(/DATABASE_URL/);
  });
});
