import Sqlite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onPostgres } from "../../testing/database.ts";
import { startTestBackend, type TestBackend } from "../../testing/harness.ts";
import { MAX_KEYS_PER_USER } from "./procedures.ts";

let app: TestBackend;
let cookie: string;
beforeAll(async () => {
  app = await startTestBackend();
  cookie = await app.signIn();
});
afterAll(() => app.close());

describe("API keys", () => {
  it("shows the full key once, then only its first characters", async () => {
    const created = await app.createApiKey(cookie, "deploy-web");
    expect(created.key).toMatch(/^sg_[A-Za-z0-9_-]{43}$/);
    expect(created.start).toBe(created.key.slice(0, created.start.length));
    expect(created.start.length).toBeLessThan(12);

    const listed = await app.request("/api/v0/apikeys", { headers: { cookie } });
    expect(listed.status).toBe(200);
    const entry = listed.json.keys.find((key: { id: string }) => key.id === created.id);
    expect(entry).toMatchObject({ name: "deploy-web", start: created.start, lastUsedAt: null });
    expect(entry.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(listed.text).not.toContain(created.key);
  });

  it("acts as the key's owner and records its last use", async () => {
    const { key, id } = await app.createApiKey(cookie, "last-used");
    const withKey = await app.request("/api/v0/apikeys", { headers: { "x-api-key": key } });
    expect(withKey.status).toBe(403);
    const listed = await app.request("/api/v0/apikeys", { headers: { cookie } });
    const entry = listed.json.keys.find((item: { id: string }) => item.id === id);
    expect(entry.lastUsedAt).not.toBeNull();
  });

  it("revokes a deleted key on the very next request", async () => {
    const { key, id } = await app.createApiKey(cookie, "short-lived");
    expect((await app.request("/api/v0/apikeys", { headers: { "x-api-key": key } })).status).toBe(403);
    const deleted = await app.request("/api/v0/apikeys", {
      method: "DELETE",
      headers: { cookie },
      json: { id },
    });
    expect(deleted.status).toBe(200);
    const after = await app.request("/api/v0/apikeys", { headers: { "x-api-key": key } });
    expect(after.status).toBe(401);
    expect(after.json.message).toMatch(/not valid/);
  });

  it("stops a key working when its owner is deleted", async () => {
    await app.addUser("carol@example.test", "carol-password-123", "Carol");
    const carolCookie = await app.signIn("carol@example.test", "carol-password-123");
    const { key } = await app.createApiKey(carolCookie, "carols-pipeline");
    expect((await app.request("/api/v0/history", { headers: { "x-api-key": key } })).status).toBe(200);
    const context = await app.backend.auth.$context;
    const carol = await context.internalAdapter.findUserByEmail("carol@example.test");
    await context.internalAdapter.deleteUser(carol!.user.id);
    expect((await app.request("/api/v0/history", { headers: { "x-api-key": key } })).status).toBe(401);
  });

  // SQLite's operator shell leaves foreign keys off; PostgreSQL always enforces them.
  it.skipIf(onPostgres())(
    "stops a key working when its owner was deleted with foreign keys off (SQLite)",
    async () => {
      await app.addUser("erin@example.test", "erin-password-123", "Erin");
      const { key } = await app.createApiKey(await app.signIn("erin@example.test", "erin-password-123"));
      expect((await app.request("/api/v0/history", { headers: { "x-api-key": key } })).status).toBe(200);
      // A second connection, as an operator's sqlite3 shell would be: foreign keys off, no cascade.
      const sqlite = new Sqlite(app.config.databasePath);
      try {
        sqlite.pragma("foreign_keys = OFF");
        sqlite.prepare("DELETE FROM user WHERE email = ?").run("erin@example.test");
        expect(
          sqlite.prepare("SELECT count(*) AS n FROM api_key WHERE start = ?").get(key.slice(0, 9)),
        ).toEqual({
          n: 1,
        });
      } finally {
        sqlite.close();
      }
      const after = await app.request("/api/v0/history", { headers: { "x-api-key": key } });
      expect(after.status).toBe(401);
      expect(after.json.message).toMatch(/not valid/);
    },
  );

  it(`caps each person at ${MAX_KEYS_PER_USER} keys with a 409 saying what to do`, async () => {
    await app.addUser("dave@example.test", "dave-password-123", "Dave");
    const daveCookie = await app.signIn("dave@example.test", "dave-password-123");
    const created = [];
    for (let index = 0; index < MAX_KEYS_PER_USER; index++) {
      created.push(await app.createApiKey(daveCookie, `pipeline-${index}`));
    }
    const create = () =>
      app.request("/api/v0/apikeys", {
        method: "POST",
        headers: { cookie: daveCookie },
        json: { name: "one-more" },
      });
    const refused = await create();
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: "CONFLICT", status: 409 });
    expect(refused.json.message).toMatch(/already have 100 API keys.*delete one/);
    const listed = await app.request("/api/v0/apikeys", { headers: { cookie: daveCookie } });
    expect(listed.json.keys).toHaveLength(MAX_KEYS_PER_USER);
    // Another person is not affected, and deleting one key makes room again.
    expect(
      (await app.request("/api/v0/apikeys", { method: "POST", headers: { cookie }, json: { name: "mine" } }))
        .status,
    ).toBe(200);
    await app.request("/api/v0/apikeys", {
      method: "DELETE",
      headers: { cookie: daveCookie },
      json: { id: created[0]!.id },
    });
    expect((await create()).status).toBe(200);
  });

  it("answers 404 for another user's key and leaves it working", async () => {
    await app.addUser("bob@example.test", "bob-password-123", "Bob");
    const bobCookie = await app.signIn("bob@example.test", "bob-password-123");
    const bobs = await app.createApiKey(bobCookie, "bobs-pipeline");
    const response = await app.request("/api/v0/apikeys", {
      method: "DELETE",
      headers: { cookie },
      json: { id: bobs.id },
    });
    expect(response.status).toBe(404);
    const mine = await app.request("/api/v0/apikeys", { headers: { cookie } });
    expect(mine.json.keys.map((key: { name: string }) => key.name)).not.toContain("bobs-pipeline");
    const bobsList = await app.request("/api/v0/apikeys", { headers: { cookie: bobCookie } });
    expect(bobsList.json.keys.map((key: { name: string }) => key.name)).toContain("bobs-pipeline");
  });
});

describe("bad input never hurts", () => {
  const badBodies: Array<[string, string, RegExp]> = [
    ["an empty name", JSON.stringify({ name: "" }), /name/],
    ["a blank name", JSON.stringify({ name: "   " }), /name/],
    ["a 10,000-character name", JSON.stringify({ name: "x".repeat(10_000) }), /name.*64/],
    ["a missing name", JSON.stringify({}), /name/],
    ["a wrong type", JSON.stringify({ name: 42 }), /name/],
    ["an unknown field", JSON.stringify({ name: "ok", admin: true }), /admin/],
    ["malformed JSON", '{"name": ', /./],
    ["an array body", "[]", /./],
  ];

  it.each(badBodies)("refuses %s with a 400 naming the problem", async (_label, body, message) => {
    const before = await app.request("/api/v0/apikeys", { headers: { cookie } });
    const response = await app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: "BAD_REQUEST", status: 400 });
    expect(response.json.message).toMatch(message);
    const after = await app.request("/api/v0/apikeys", { headers: { cookie } });
    expect(after.json.keys).toHaveLength(before.json.keys.length);
  });

  it("refuses a body over 1 MiB with 413", async () => {
    const response = await app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) }),
    });
    expect(response.status).toBe(413);
    expect(response.json.message).toMatch(/1 MiB/);
  });

  it("answers unknown endpoints with a JSON 404", async () => {
    const response = await app.request("/api/v0/nope", { headers: { cookie } });
    expect(response.status).toBe(404);
    expect(response.json.code).toBe("NOT_FOUND");
  });

  it("never answered 500 to anything above", () => {
    expect(app.logLines.filter((line) => line.includes('"status":500'))).toEqual([]);
  });
});
