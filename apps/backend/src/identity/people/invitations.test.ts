import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invitation } from "../../db/schema.ts";
import { manualClock } from "../../testing/clock.ts";
import { APP_ORIGIN, startTestBackend, type TestBackend } from "../../testing/harness.ts";
import { cookieOf, invitePerson } from "./testing.ts";

const clock = manualClock(Date.now());
let app: TestBackend;
let admin: string;
beforeAll(async () => {
  app = await startTestBackend({ clock });
  admin = await app.signIn();
});
afterAll(() => app.close());

const DAY_MS = 86_400_000;

async function invite(email: string, role = "deployer") {
  return app.request("/api/v0/users/invitations", {
    method: "POST",
    headers: { cookie: admin },
    json: { email, role },
  });
}

const tokenOf = (url: string) => url.split("/invite/")[1] as string;

function accept(token: string, name = "New Person", password = "a-long-password-1") {
  return app.request("/api/v0/invitations/accept", { method: "POST", json: { token, name, password } });
}

/** The stored rows, read straight from the database. */
const storedInvitations = () => app.backend.db.select().from(invitation);

describe("inviting", () => {
  it("answers a one-time link under APP_URL, valid 7 days; only the token's SHA-256 hash is stored", async () => {
    const invited = await invite("Grace@Example.test");
    expect(invited.status).toBe(200);
    expect(invited.json).toEqual({
      id: expect.any(String),
      url: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(invited.json.url).toMatch(new RegExp(`^${APP_ORIGIN}/invite/[A-Za-z0-9_-]{43}$`));
    expect(new Date(invited.json.expiresAt).getTime()).toBe(clock.now() + 7 * DAY_MS);
    const token = tokenOf(invited.json.url);
    const row = (await storedInvitations()).find((stored) => stored.id === invited.json.id)!;
    expect(row.tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(await storedInvitations())).not.toContain(token);

    const pending = await app.request("/api/v0/users/invitations", { headers: { cookie: admin } });
    expect(pending.json.invitations).toContainEqual({
      id: invited.json.id,
      email: "grace@example.test",
      role: "deployer",
      createdAt: expect.any(String),
      expiresAt: invited.json.expiresAt,
      invitedBy: "Ada Admin",
    });
    // Shown once: the list never carries the link.
    expect(pending.text).not.toContain(token);
  });

  it("answers 400 naming the field: unknown role, malformed email, an account or a pending invitation", async () => {
    const cases: [unknown, RegExp][] = [
      [{ email: "role@example.test", role: "owner" }, /^role: role must be one of admin, deployer, viewer/],
      [{ email: "not-an-email", role: "viewer" }, /^email: email must be an email address/],
      [{ email: "admin@example.test", role: "viewer" }, /^email: admin@example.test already has an account/],
      [
        { email: "grace@example.test", role: "viewer" },
        /^email: grace@example.test already has a pending invitation/,
      ],
      [{ email: "x@example.test" }, /^role: /],
    ];
    for (const [json, message] of cases) {
      const refused = await app.request("/api/v0/users/invitations", {
        method: "POST",
        headers: { cookie: admin },
        json,
      });
      expect(refused.status, JSON.stringify(json)).toBe(400);
      expect(refused.json.message).toMatch(message);
    }
    expect((await storedInvitations()).filter((row) => row.email !== "grace@example.test")).toEqual([]);
  });

  it("is for admins only", async () => {
    const viewer = await invitePerson(app, admin, { email: "viewer@example.test", role: "viewer" });
    const refused = await app.request("/api/v0/users/invitations", {
      method: "POST",
      headers: { cookie: viewer.cookie },
      json: { email: "friend@example.test", role: "admin" },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/Your role is viewer/);
  });
});

describe("accepting", () => {
  it("shows what a link is for, without a session", async () => {
    const invited = await invite("inspect@example.test", "viewer");
    const inspected = await app.request("/api/v0/invitations/inspect", {
      method: "POST",
      json: { token: tokenOf(invited.json.url) },
    });
    expect(inspected.status).toBe(200);
    expect(inspected.json).toEqual({
      email: "inspect@example.test",
      role: "viewer",
      expiresAt: invited.json.expiresAt,
    });
  });

  it("creates the account with the invitation's role, and arrives signed in", async () => {
    const invited = await invite("Hopper@Example.test", "deployer");
    const accepted = await accept(tokenOf(invited.json.url), "Grace Hopper", "hopper-password-1");
    expect(accepted.status).toBe(200);
    expect(accepted.json).toEqual({
      id: expect.any(String),
      name: "Grace Hopper",
      email: "hopper@example.test",
      role: "deployer",
      sso: false,
    });
    const setCookie = accepted.headers.getSetCookie().find((cookie) => cookie.includes("session_token"));
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const me = await app.request("/api/v0/me", { headers: { cookie: cookieOf(accepted.headers) } });
    expect(me.json).toMatchObject({ email: "hopper@example.test", role: "deployer" });
    // The chosen password signs in later as well.
    await app.signIn("hopper@example.test", "hopper-password-1");
    const pending = await app.request("/api/v0/users/invitations", { headers: { cookie: admin } });
    expect(pending.json.invitations.map((listed: { email: string }) => listed.email)).not.toContain(
      "hopper@example.test",
    );
  });

  it("sets the session cookie through /rpc too, as the dashboard's client calls it", async () => {
    const invited = await invite("rpc@example.test", "viewer");
    const accepted = await app.request("/rpc/invitations/accept", {
      method: "POST",
      json: { json: { token: tokenOf(invited.json.url), name: "Rpc Person", password: "rpc-password-123" } },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.json.json).toMatchObject({ email: "rpc@example.test", role: "viewer" });
    const me = await app.request("/api/v0/me", { headers: { cookie: cookieOf(accepted.headers) } });
    expect(me.json.email).toBe("rpc@example.test");
  });

  it("answers a used, revoked or expired link with a 400 naming token and the reason; inspect with 410", async () => {
    const used = await invite("used@example.test");
    expect((await accept(tokenOf(used.json.url))).status).toBe(200);

    const revoked = await invite("revoked@example.test");
    const revoking = await app.request(`/api/v0/users/invitations/${revoked.json.id}`, {
      method: "DELETE",
      headers: { cookie: admin },
    });
    expect(revoking.status).toBe(200);
    expect(revoking.json).toEqual({ revoked: true });
    const again = await app.request(`/api/v0/users/invitations/${revoked.json.id}`, {
      method: "DELETE",
      headers: { cookie: admin },
    });
    expect(again.status).toBe(404);

    const expired = await invite("expired@example.test");
    clock.advance(7 * DAY_MS + 1);
    try {
      for (const [url, reason] of [
        [used.json.url, /already used/],
        [revoked.json.url, /revoked/],
        [expired.json.url, /expired/],
      ] as const) {
        const refused = await accept(tokenOf(url));
        expect(refused.status).toBe(400);
        expect(refused.json.message).toMatch(/^token: this invitation /);
        expect(refused.json.message).toMatch(reason);
        expect(refused.headers.getSetCookie()).toEqual([]);
        const inspected = await app.request("/api/v0/invitations/inspect", {
          method: "POST",
          json: { token: tokenOf(url) },
        });
        expect(inspected.status).toBe(410);
        expect(inspected.json.message).toMatch(reason);
      }
      // An expired invitation no longer blocks a new one for the same address.
      expect((await invite("expired@example.test")).status).toBe(200);
    } finally {
      clock.advance(-(7 * DAY_MS + 1));
    }
  });

  it("answers an unknown token 404, a malformed one, a weak password and an empty name 400, creating nothing", async () => {
    const unknown = await accept("A".repeat(43));
    expect(unknown.status).toBe(404);
    const malformed = await accept("not a token!");
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toMatch(/^token: /);

    const invited = await invite("weak@example.test");
    const token = tokenOf(invited.json.url);
    const weak = await accept(token, "Weak", "short");
    expect(weak.status).toBe(400);
    expect(weak.json.message).toMatch(/^password: password must be at least 12 characters/);
    const nameless = await accept(token, "   ");
    expect(nameless.status).toBe(400);
    expect(nameless.json.message).toMatch(/^name: /);
    const people = await app.request("/api/v0/users", { headers: { cookie: admin } });
    expect(people.json.users.map((person: { email: string }) => person.email)).not.toContain(
      "weak@example.test",
    );
    // The link still works after those refusals.
    expect((await accept(token)).status).toBe(200);
  });

  it("uses a link once even when two accept it at the same moment", async () => {
    const invited = await invite("race@example.test");
    const token = tokenOf(invited.json.url);
    // Database connections ready for both (on PostgreSQL), so neither waits for one to open.
    await Promise.all([1, 2, 3].map(() => app.request("/api/v0/users", { headers: { cookie: admin } })));
    const answers = await Promise.all([accept(token, "First"), accept(token, "Second")]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    const people = await app.request("/api/v0/users", { headers: { cookie: admin } });
    expect(
      people.json.users.filter((person: { email: string }) => person.email === "race@example.test"),
    ).toHaveLength(1);
  });

  it("never answers or logs a token beyond the invitation's own answer", async () => {
    const invited = await invite("leak@example.test");
    const token = tokenOf(invited.json.url);
    await accept(token, "Leak", "leak-password-12");
    const laterBodies = app.responseBodies.filter((body) => !body.includes(invited.json.url));
    expect(laterBodies.join("\n")).not.toContain(token);
    expect(app.logLines.join("\n")).not.toContain(token);
    expect(app.logLines.join("\n")).not.toContain("leak-password-12");
  });
});
