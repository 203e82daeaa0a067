import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invitePerson } from "../identity/people/testing.ts";
import { ADMIN, startConnectedBackend, type TestBackend } from "../testing/harness.ts";

let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let app: TestBackend;
let cookie: string;
beforeAll(async () => {
  world = await startConnectedBackend({ komodo: { stacks: 4 } });
  ({ app, cookie } = world);
});
afterAll(() => world.close());

interface Entry {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  detail: Record<string, unknown> | null;
}

async function newestEntries(count: number): Promise<Entry[]> {
  const page = await app.request(`/api/v0/audit?limit=${count}`, { headers: { cookie } });
  expect(page.status).toBe(200);
  return page.json.entries;
}

describe("who changed what", () => {
  it("records the Komodo connection saved and removed, never its key or secret", async () => {
    const { url, key, secret } = world.komodo;
    const saved = await app.request("/api/v0/deploy/credentials", {
      method: "POST",
      headers: { cookie },
      json: { name: "second", url, key, secret },
    });
    expect(saved.status).toBe(200);
    expect((await newestEntries(1))[0]).toMatchObject({
      actor: ADMIN.name,
      action: "connection.saved",
      target: "second",
      detail: { url: world.komodo.url },
    });
    const removed = await app.request("/api/v0/deploy/credentials", {
      method: "DELETE",
      headers: { cookie },
      json: { name: "second" },
    });
    expect(removed.status).toBe(200);
    expect((await newestEntries(1))[0]).toMatchObject({ action: "connection.removed", target: "second" });
    await app.connectKomodo(cookie, world.komodo);
    const everything = JSON.stringify(await newestEntries(100));
    expect(everything).not.toContain(world.komodo.key);
    expect(everything).not.toContain(world.komodo.secret);
  });

  it("records the alert settings saved and removed, with the token only as tokenSet", async () => {
    const token = "tk_auditTokenNeverShown0123456789";
    const saved = await app.request("/api/v0/deploy/credentials/notify", {
      method: "POST",
      headers: { cookie },
      json: { url: "http://127.0.0.1:9", topic: "deploys", token, enabled: true },
    });
    expect(saved.status).toBe(200);
    expect((await newestEntries(1))[0]).toMatchObject({
      action: "alerts.saved",
      detail: { url: "http://127.0.0.1:9", topic: "deploys", enabled: true, tokenSet: true },
    });
    await app.request("/api/v0/deploy/credentials/notify", { method: "DELETE", headers: { cookie } });
    expect((await newestEntries(1))[0]).toMatchObject({ action: "alerts.removed" });
    expect(JSON.stringify(await newestEntries(100))).not.toContain(token);
  });

  it("records API keys created and deleted by name and id, never the key", async () => {
    const created = await app.createApiKey(cookie, "audited-key");
    expect((await newestEntries(1))[0]).toMatchObject({
      action: "apikey.created",
      target: "audited-key",
      detail: { id: created.id, scope: null, expiresAt: null },
    });
    await app.request("/api/v0/apikeys", { method: "DELETE", headers: { cookie }, json: { id: created.id } });
    expect((await newestEntries(1))[0]).toMatchObject({
      action: "apikey.deleted",
      target: "audited-key",
      detail: { id: created.id },
    });
    expect(JSON.stringify(await newestEntries(100))).not.toContain(created.key);
  });

  it("records poll-for-updates and stack deletion, once Komodo did them", async () => {
    const [stack] = (await app.request("/api/v0/stacks", { headers: { cookie } })).json.stacks;
    const set = await app.request(`/api/v0/stacks/${stack.name}/poll-for-updates`, {
      method: "PUT",
      headers: { cookie },
      json: { enabled: true },
    });
    expect(set.status).toBe(200);
    expect((await newestEntries(1))[0]).toMatchObject({
      action: "stack.poll-for-updates-set",
      target: stack.name,
      detail: { enabled: true },
    });
    const deleted = await app.request(`/api/v0/stacks/${stack.name}`, {
      method: "DELETE",
      headers: { cookie },
    });
    expect(deleted.status).toBe(200);
    expect((await newestEntries(1))[0]).toMatchObject({ action: "stack.deleted", target: stack.name });
    const failed = await app.request("/api/v0/stacks/no-such-stack/poll-for-updates", {
      method: "PUT",
      headers: { cookie },
      json: { enabled: true },
    });
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect((await newestEntries(1))[0]?.target).not.toBe("no-such-stack");
  });

  it("records invitations made, revoked and accepted, never their token", async () => {
    const invited = await app.request("/api/v0/users/invitations", {
      method: "POST",
      headers: { cookie },
      json: { email: "Audit.Invitee@Example.test", role: "deployer" },
    });
    const token = invited.json.url.split("/invite/")[1];
    expect((await newestEntries(1))[0]).toMatchObject({
      action: "invitation.created",
      target: "audit.invitee@example.test",
      detail: { role: "deployer" },
    });
    await app.request(`/api/v0/users/invitations/${invited.json.id}`, {
      method: "DELETE",
      headers: { cookie },
    });
    expect((await newestEntries(1))[0]).toMatchObject({
      action: "invitation.revoked",
      target: "audit.invitee@example.test",
    });
    expect(JSON.stringify(await newestEntries(100))).not.toContain(token);
  });
});

describe("reading the audit", () => {
  it("pages newest first with limit and an opaque cursor, like the history", async () => {
    const all: Entry[] = (await app.request("/api/v0/audit?limit=100", { headers: { cookie } })).json.entries;
    expect(all.length).toBeGreaterThan(6);
    const sorted = [...all].sort((a, b) => b.at.localeCompare(a.at) || b.id.localeCompare(a.id));
    expect(all).toEqual(sorted);

    const seen: Entry[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=3&cursor=${cursor}` : "?limit=3";
      const page = await app.request(`/api/v0/audit${query}`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(page.json.entries.length).toBeLessThanOrEqual(3);
      seen.push(...page.json.entries);
      cursor = page.json.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it("answers 400 naming the parameter for a bad limit or cursor", async () => {
    const limit = await app.request("/api/v0/audit?limit=0", { headers: { cookie } });
    expect(limit.status).toBe(400);
    expect(limit.json.message).toMatch(/^limit: /);
    const cursor = await app.request("/api/v0/audit?cursor=not-ours", { headers: { cookie } });
    expect(cursor.status).toBe(400);
    expect(cursor.json.message).toMatch(/^cursor: cursor is not one this API gave out/);
  });

  it("is for admins only: a deployer gets 403 naming the role, a key 403", async () => {
    const deployer = await invitePerson(app, cookie, { email: "reader@example.test", role: "deployer" });
    const refused = await app.request("/api/v0/audit", { headers: { cookie: deployer.cookie } });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/Your role is deployer/);
    const byKey = await app.request("/api/v0/audit", { headers: { "x-api-key": world.key } });
    expect(byKey.status).toBe(403);
  });
});

describe("sign-ins and ended sessions", () => {
  const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
    app.request(path, { method: "POST", json, headers: { "x-forwarded-for": "203.0.113.9", ...headers } });

  it("records a sign-in, a failed one (also for an email nobody has) and the lockout once, never the password", async () => {
    const person = await invitePerson(app, cookie, { email: "sig@example.test", role: "viewer" });
    expect(
      (await post("/api/auth/sign-in/email", { email: person.email, password: person.password })).status,
    ).toBe(200);
    expect(
      (await post("/api/auth/sign-in/email", { email: person.email, password: "not-it-at-all" })).status,
    ).toBe(401);
    expect(
      (await post("/api/auth/sign-in/email", { email: "ghost@example.test", password: "whatever-1" })).status,
    ).toBe(401);
    const newest = await newestEntries(3);
    expect(newest[0]).toMatchObject({
      action: "user.sign-in-failed",
      actor: "ghost@example.test",
      target: "ghost@example.test",
      by: { userId: null, email: "ghost@example.test", keyId: null },
    });
    expect(newest[1]).toMatchObject({
      action: "user.sign-in-failed",
      actor: person.name,
      target: person.email,
      by: { userId: person.id, email: person.email, keyId: null },
    });
    expect(newest[2]).toMatchObject({
      action: "user.signed-in",
      target: person.email,
      detail: { method: "password", address: expect.any(String) },
    });

    for (let attempt = 2; attempt <= 12; attempt++)
      await post("/api/auth/sign-in/email", { email: person.email, password: `wrong-${attempt}` });
    const lockouts = (await newestEntries(40)).filter((entry) => entry.action === "user.sign-in-locked-out");
    expect(lockouts).toEqual([
      expect.objectContaining({
        target: person.email,
        detail: expect.objectContaining({ scope: "account" }),
      }),
    ]);
    expect(JSON.stringify(await newestEntries(40))).not.toContain(person.password);
  });

  it("records the sessions a disabling and a password change end", async () => {
    const person = await invitePerson(app, cookie, { email: "ends@example.test", role: "viewer" });
    const second = await app.signIn(person.email, person.password);
    const changed = await app.request("/api/v0/me/password", {
      method: "POST",
      headers: { cookie: second },
      json: { currentPassword: person.password, newPassword: "another-password-0123" },
    });
    expect(changed.status).toBe(200);
    // Written in one transaction at one moment, and still listed in the order they happened.
    expect((await newestEntries(2)).map((entry) => [entry.action, entry.detail])).toEqual([
      ["user.sessions-revoked", { name: person.name, count: 1, because: "password-changed" }],
      ["user.password-changed", null],
    ]);
    await app.request(`/api/v0/users/${person.id}`, {
      method: "PATCH",
      headers: { cookie },
      json: { disabled: true },
    });
    expect((await newestEntries(2)).map((entry) => [entry.action, entry.actor, entry.detail])).toEqual([
      ["user.sessions-revoked", ADMIN.name, { name: person.name, count: 1, because: "disabled" }],
      ["user.disabled", ADMIN.name, { name: person.name }],
    ]);
  });
});
