import { afterAll, describe, expect, it, vi } from "vitest";
import { onPostgres } from "../testing/database.ts";
import { startConnectedBackend } from "../testing/harness.ts";
import { createTestDatabase, type PostgresServer, startPostgres } from "../testing/postgres.ts";

// A server of its own: stopping the one the other test files share would fail them.
describe.skipIf(!onPostgres())("PostgreSQL going away while the service runs", () => {
  let postgres: PostgresServer | undefined;
  let world: Awaited<ReturnType<typeof startConnectedBackend>> | undefined;
  afterAll(async () => {
    await world?.close();
    postgres?.remove();
  });

  it("answers 503 naming the database, sends nothing to Komodo, and recovers by itself when it is back", async () => {
    postgres = await startPostgres();
    const databaseUrl = await createTestDatabase(postgres.adminUrl);
    world = await startConnectedBackend({
      komodo: { stacks: [{ name: "web", state: "running" }] },
      env: { DATABASE_URL: databaseUrl },
    });
    const { app, key, komodo } = world;
    const deploy = () =>
      app.request("/api/v0/deploy", {
        method: "POST",
        headers: { "x-api-key": key },
        json: { stack: "web", action: "pull" },
      });

    // A clean stop: a crash of this test server (no synchronous commits) could lose the key just made.
    postgres.stop("fast");
    komodo.clearCalls();
    const refused = await deploy();
    expect(refused.status).toBe(503);
    expect(refused.json.message).toMatch(
      /^The database cannot be reached \(PostgreSQL is down or restarting\)/,
    );
    expect(komodo.calls.filter((call) => call.api === "execute")).toEqual([]);
    const history = await app.request("/api/v0/history", { headers: { cookie: world.cookie } });
    expect(history.status).toBe(503);
    expect(history.json.message).toMatch(/^The database cannot be reached/);
    expect(app.responseBodies.join("\n")).not.toContain(databaseUrl);

    postgres.start();
    await vi.waitFor(async () => expect((await deploy()).status).toBe(200), {
      timeout: 20_000,
      interval: 500,
    });
    const recorded = await app.request("/api/v0/history", { headers: { "x-api-key": key } });
    expect(recorded.json.history).toEqual([
      expect.objectContaining({ stack: "web", action: "pull", success: true }),
    ]);
  });
});
