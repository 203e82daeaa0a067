import { type KomodoSimulator, startKomodoSimulator } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upstreamConnection } from "../db/schema.ts";
import { startTestBackend, type TestBackend } from "../testing/harness.ts";

let komodo: KomodoSimulator;
let app: TestBackend;
let cookie: string;

beforeAll(async () => {
  komodo = await startKomodoSimulator({ stacks: 3 });
  app = await startTestBackend();
  cookie = await app.signIn();
});
afterAll(async () => {
  await app.close();
  await komodo.close();
});

const save = (json: unknown) =>
  app.request("/api/v0/deploy/credentials", { method: "POST", headers: { cookie }, json });

describe("Komodo connection", () => {
  it("starts with none, and stacks answer 503 until one is saved", async () => {
    expect((await app.request("/api/v0/deploy/credentials", { headers: { cookie } })).json).toEqual({
      connection: null,
    });
    const stacks = await app.request("/api/v0/stacks", { headers: { cookie } });
    expect(stacks.status).toBe(503);
    expect(stacks.json.message).toMatch(/No Komodo connection/);
  });

  it("saves, reports reachability and version, and returns only id, name and url", async () => {
    const saved = await save({ name: "home", url: `${komodo.url}/`, key: komodo.key, secret: komodo.secret });
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({ reachable: true, version: "2.3.2", error: null });
    expect(saved.json.connection).toEqual({ id: expect.any(String), name: "home", url: komodo.url });
    const current = await app.request("/api/v0/deploy/credentials", { headers: { cookie } });
    expect(Object.keys(current.json.connection).sort()).toEqual(["id", "name", "url"]);
    expect((await app.request("/api/v0/stacks", { headers: { cookie } })).json.stacks).toHaveLength(3);
  });

  it("saves an unreachable connection too, and says why it did not answer", async () => {
    const saved = await save({ name: "away", url: "http://127.0.0.1:9", key: "k", secret: "s" });
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({ reachable: false, version: null });
    expect(saved.json.error).toMatch(/unreachable/i);
    expect(
      (await app.request("/api/v0/deploy/credentials", { headers: { cookie } })).json.connection.name,
    ).toBe("away");
  });

  it("saves nothing when Komodo rejects the key and secret, and keeps the current connection", async () => {
    const before = (await app.request("/api/v0/deploy/credentials", { headers: { cookie } })).json.connection;
    const wrong = await save({ name: "home", url: komodo.url, key: komodo.key, secret: "wrong-secret" });
    expect(wrong.status).toBe(422);
    expect(wrong.json.message).toMatch(
      /^Komodo rejected the key and secret \(.*Invalid user credentials.*\); nothing was saved$/,
    );
    expect(wrong.text).not.toContain("wrong-secret");
    expect(
      (await app.request("/api/v0/deploy/credentials", { headers: { cookie } })).json.connection,
    ).toEqual(before);
  });

  it("replaces the current connection and reloads the client", async () => {
    const other = await startKomodoSimulator({ stacks: 1 });
    try {
      const saved = await save({ name: "home", url: other.url, key: other.key, secret: other.secret });
      expect(saved.json).toMatchObject({ reachable: true });
      expect((await app.request("/api/v0/stacks", { headers: { cookie } })).json.stacks).toHaveLength(1);
    } finally {
      await other.close();
    }
    await save({ name: "home", url: komodo.url, key: komodo.key, secret: komodo.secret });
    expect((await app.request("/api/v0/stacks", { headers: { cookie } })).json.stacks).toHaveLength(3);
  });

  it("refuses a user name or password in the URL with 400, never echoing it", async () => {
    const before = (await app.request("/api/v0/deploy/credentials", { headers: { cookie } })).json.connection;
    for (const url of [
      `http://operator:hunter2-pass@${new URL(komodo.url).host}`,
      `http://operator@${new URL(komodo.url).host}`,
    ]) {
      const refused = await save({ name: "home", url, key: komodo.key, secret: komodo.secret });
      expect(refused.status).toBe(400);
      expect(refused.json.message).toMatch(/url must not contain a user name or password/);
      expect(refused.text).not.toContain("hunter2-pass");
    }
    expect(
      (await app.request("/api/v0/deploy/credentials", { headers: { cookie } })).json.connection,
    ).toEqual(before);
  });

  it("never shows a user name or password an older version stored in the URL", async () => {
    await app.backend.db.transaction((tx) =>
      tx.update(upstreamConnection).set({ url: "http://operator:hunter2-pass@komodo.example:9120" }),
    );
    const shown = await app.request("/api/v0/deploy/credentials", { headers: { cookie } });
    expect(shown.json.connection.url).toBe("http://komodo.example:9120");
    expect(shown.text).not.toContain("hunter2-pass");
    await save({ name: "home", url: komodo.url, key: komodo.key, secret: komodo.secret });
  });

  it("deletes by name only", async () => {
    const other = await app.request("/api/v0/deploy/credentials", {
      method: "DELETE",
      headers: { cookie },
      json: { name: "not-this-one" },
    });
    expect(other.status).toBe(404);
    const deleted = await app.request("/api/v0/deploy/credentials", {
      method: "DELETE",
      headers: { cookie },
      json: { name: "home" },
    });
    expect(deleted.status).toBe(200);
    expect((await app.request("/api/v0/stacks", { headers: { cookie } })).status).toBe(503);
  });

  it.each([
    [{ name: "x", url: "not a url", key: "k", secret: "s" }, /url/],
    [{ name: "x", url: "ftp://komodo.example", key: "k", secret: "s" }, /url/],
    [{ name: "x", url: "javascript:alert(1)", key: "k", secret: "s" }, /url/],
    [{ name: "", url: "http://komodo.example", key: "k", secret: "s" }, /name/],
    [{ name: "x", url: "http://komodo.example", key: "", secret: "s" }, /key/],
    [{ name: "x", url: "http://komodo.example", key: "k" }, /secret/],
    [{ name: "x", url: "http://komodo.example", key: "k\nx", secret: "s" }, /key/],
  ])("refuses %j with 400 and stores nothing", async (body, message) => {
    const response = await save(body);
    expect(response.status).toBe(400);
    expect(response.json.message).toMatch(message);
    expect(
      (await app.request("/api/v0/deploy/credentials", { headers: { cookie } })).json.connection,
    ).toBeNull();
  });

  it("never lets the key or the secret into a response or a log line", async () => {
    const canary = {
      key: "K_canaryKEY0123456789abcdefghijklmnopqrstu_K",
      secret: "S_canarySECRET9876543210zyxwvutsrqponmlkj_S",
    };
    const leaky = await startKomodoSimulator({ ...canary, stacks: 1 });
    try {
      await save({ name: "canary", url: leaky.url, ...canary });
      await app.request("/api/v0/deploy/credentials", { headers: { cookie } });
      await app.request("/api/v0/stacks", { headers: { cookie } });
      await app.request("/api/v0/deploy", {
        method: "POST",
        headers: { cookie },
        json: { stack: "nope", action: "pull" },
      });
      await leaky.faults.set({ badCredentials: true });
      await app.request("/api/v0/stacks", { headers: { cookie } });
      await save({ name: "canary", url: "http://127.0.0.1:9", ...canary });
      await app.request("/doc");
    } finally {
      await leaky.close();
    }
    for (const text of [...app.responseBodies, ...app.logLines]) {
      expect(text).not.toContain(canary.key);
      expect(text).not.toContain(canary.secret);
    }
  });
});
