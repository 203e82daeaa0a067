import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../../audit/service.ts";
import type { Transaction } from "../../db/database.ts";
import { account, user } from "../../db/schema.ts";
import { ADMIN, startTestBackend, type TestBackend } from "../../testing/harness.ts";
import { invitePerson } from "./testing.ts";

let app: TestBackend;
let admin: string;
beforeAll(async () => {
  app = await startTestBackend();
  admin = await app.signIn();
});
afterAll(() => app.close());

/** Changes stored rows behind the API's back, as single sign-on or an older session would have left them. */
const writeDirectly = (write: (tx: Transaction) => Promise<unknown>) => app.backend.db.transaction(write);

const users = async () => (await app.request("/api/v0/users", { headers: { cookie: admin } })).json.users;

describe("the signed-in person", () => {
  it("get-session answers the role, and the seeded admin is an admin", async () => {
    const session = await app.request("/api/auth/get-session", { headers: { cookie: admin } });
    expect(session.json.user.role).toBe("admin");
  });

  it("GET /api/v0/me answers id, name, email and role", async () => {
    const me = await app.request("/api/v0/me", { headers: { cookie: admin } });
    expect(me.status).toBe(200);
    expect(me.json).toEqual({
      id: expect.any(String),
      name: ADMIN.name,
      email: ADMIN.email,
      role: "admin",
      sso: false,
    });
  });

  it("renames oneself, and the audit says who did it", async () => {
    const { cookie, email } = await invitePerson(app, admin, {
      email: "rename@example.test",
      role: "viewer",
    });
    const renamed = await app.request("/api/v0/me", {
      method: "PATCH",
      headers: { cookie },
      json: { name: " Rena " },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json.name).toBe("Rena");
    const empty = await app.request("/api/v0/me", {
      method: "PATCH",
      headers: { cookie },
      json: { name: "  " },
    });
    expect(empty.status).toBe(400);
    expect(empty.json.message).toMatch(/^name: /);
    const audit = await app.request("/api/v0/audit", { headers: { cookie: admin } });
    expect(audit.json.entries[0]).toMatchObject({
      actor: "rename",
      action: "user.renamed",
      target: email,
      detail: { from: "rename", to: "Rena" },
    });
  });

  it("leaves no way around the audit: Better Auth's own update-user and change-password are closed", async () => {
    for (const [path, json] of [
      ["/api/auth/update-user", { name: "Sneaky" }],
      ["/api/auth/change-password", { currentPassword: ADMIN.password, newPassword: "sneaky-password-1" }],
    ] as const) {
      const closed = await app.request(path, { method: "POST", headers: { cookie: admin }, json });
      expect(closed.status).toBe(404);
    }
    expect((await app.request("/api/v0/me", { headers: { cookie: admin } })).json.name).toBe(ADMIN.name);
    await app.signIn();
  });

  it("changes one's password: the other sessions end, this one stays, the new password signs in", async () => {
    const person = await invitePerson(app, admin, { email: "pass@example.test", role: "deployer" });
    const other = await app.signIn(person.email, person.password);
    const wrong = await app.request("/api/v0/me/password", {
      method: "POST",
      headers: { cookie: person.cookie },
      json: { currentPassword: "not-my-password", newPassword: "a-new-password-42" },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.message).toMatch(/^currentPassword: /);
    const weak = await app.request("/api/v0/me/password", {
      method: "POST",
      headers: { cookie: person.cookie },
      json: { currentPassword: person.password, newPassword: "short" },
    });
    expect(weak.status).toBe(400);
    expect(weak.json.message).toMatch(/^newPassword: /);

    const changed = await app.request("/api/v0/me/password", {
      method: "POST",
      headers: { cookie: person.cookie },
      json: { currentPassword: person.password, newPassword: "a-new-password-42" },
    });
    expect(changed.status).toBe(200);
    expect((await app.request("/api/v0/me", { headers: { cookie: person.cookie } })).status).toBe(200);
    expect((await app.request("/api/v0/me", { headers: { cookie: other } })).status).toBe(401);
    await expect(app.signIn(person.email, person.password)).rejects.toThrow(/sign-in failed/);
    await app.signIn(person.email, "a-new-password-42");
    expect(app.responseBodies.join("\n")).not.toContain("a-new-password-42");
  });
});

describe("single sign-on accounts and disabled sessions", () => {
  it("answers 409 to a password change on an account without a password", async () => {
    const person = await invitePerson(app, admin, { email: "sso-only@example.test", role: "viewer" });
    await writeDirectly((tx) =>
      tx.delete(account).where(and(eq(account.userId, person.id), eq(account.providerId, "credential"))),
    );
    const refused = await app.request("/api/v0/me/password", {
      method: "POST",
      headers: { cookie: person.cookie },
      json: { currentPassword: person.password, newPassword: "a-new-password-42" },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.message).toMatch(/single sign-on and has no password/);
  });

  it("answers 409 to a role change of a person whose role single sign-on manages, and lists them as sso", async () => {
    const person = await invitePerson(app, admin, { email: "sso-role@example.test", role: "viewer" });
    await writeDirectly((tx) => tx.update(user).set({ roleFromSso: true }).where(eq(user.id, person.id)));
    const refused = await app.request(`/api/v0/users/${person.id}`, {
      method: "PATCH",
      headers: { cookie: admin },
      json: { role: "admin" },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.message).toMatch(/managed by single sign-on/);
    expect((await users()).find((listed: { id: string }) => listed.id === person.id)).toMatchObject({
      role: "viewer",
      sso: true,
    });
    expect((await app.request("/api/v0/me", { headers: { cookie: person.cookie } })).json.sso).toBe(true);
    // Disabling is still the admin's to decide.
    const disabled = await app.request(`/api/v0/users/${person.id}`, {
      method: "PATCH",
      headers: { cookie: admin },
      json: { disabled: true },
    });
    expect(disabled.status).toBe(200);
  });

  it("refuses a session of a disabled person even if it survived the disabling", async () => {
    const person = await invitePerson(app, admin, { email: "survivor@example.test", role: "deployer" });
    await writeDirectly((tx) => tx.update(user).set({ disabled: true }).where(eq(user.id, person.id)));
    const refused = await app.request("/api/v0/me", { headers: { cookie: person.cookie } });
    expect(refused.status).toBe(401);
    expect(refused.json.message).toMatch(/Your account is disabled/);
  });
});

describe("people, for admins", () => {
  it("lists people with role, disabled, createdAt, lastSignInAt and sso", async () => {
    const listed = await users();
    expect(listed).toContainEqual({
      id: expect.any(String),
      name: ADMIN.name,
      email: ADMIN.email,
      role: "admin",
      disabled: false,
      createdAt: expect.any(String),
      lastSignInAt: expect.any(String),
      sso: false,
    });
  });

  it("sets lastSignInAt at every sign-in", async () => {
    const before = (await users()).find(
      (person: { email: string }) => person.email === ADMIN.email,
    ).lastSignInAt;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await app.signIn();
    const after = (await users()).find(
      (person: { email: string }) => person.email === ADMIN.email,
    ).lastSignInAt;
    expect(new Date(after).getTime()).toBeGreaterThan(new Date(before).getTime());
  });

  it("refuses people to anyone but an admin, naming the role", async () => {
    const { cookie } = await invitePerson(app, admin, { email: "nosy@example.test", role: "deployer" });
    const refused = await app.request("/api/v0/users", { headers: { cookie } });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/Your role is deployer, which may not .*: ask an admin/);
  });

  it("changes a role: the person's rights change at once, and the audit records from and to", async () => {
    const person = await invitePerson(app, admin, { email: "promote@example.test", role: "viewer" });
    expect((await app.request("/api/v0/users", { headers: { cookie: person.cookie } })).status).toBe(403);
    const promoted = await app.request(`/api/v0/users/${person.id}`, {
      method: "PATCH",
      headers: { cookie: admin },
      json: { role: "admin" },
    });
    expect(promoted.status).toBe(200);
    expect(promoted.json).toMatchObject({ id: person.id, role: "admin", disabled: false });
    expect((await app.request("/api/v0/users", { headers: { cookie: person.cookie } })).status).toBe(200);
    const session = await app.request("/api/auth/get-session", { headers: { cookie: person.cookie } });
    expect(session.json.user.role).toBe("admin");
    const audit = await app.request("/api/v0/audit?limit=1", { headers: { cookie: admin } });
    expect(audit.json.entries[0]).toMatchObject({
      actor: ADMIN.name,
      action: "user.role-changed",
      target: person.email,
      detail: { from: "viewer", to: "admin" },
    });
  });

  it("answers 400 naming the field for an unknown role, and 404 for an unknown person", async () => {
    const person = await invitePerson(app, admin, { email: "badrole@example.test", role: "viewer" });
    const badRole = await app.request(`/api/v0/users/${person.id}`, {
      method: "PATCH",
      headers: { cookie: admin },
      json: { role: "owner" },
    });
    expect(badRole.status).toBe(400);
    expect(badRole.json.message).toMatch(/^role: role must be one of admin, deployer, viewer/);
    const unknown = await app.request("/api/v0/users/nobody", {
      method: "PATCH",
      headers: { cookie: admin },
      json: { disabled: true },
    });
    expect(unknown.status).toBe(404);
    expect(
      (await app.request("/api/v0/users/nobody", { method: "DELETE", headers: { cookie: admin } })).status,
    ).toBe(404);
  });

  it("disabling ends the person's sessions at once, refuses their sign-in, and enabling lets them back", async () => {
    const person = await invitePerson(app, admin, { email: "disable@example.test", role: "deployer" });
    const disabled = await app.request(`/api/v0/users/${person.id}`, {
      method: "PATCH",
      headers: { cookie: admin },
      json: { disabled: true },
    });
    expect(disabled.status).toBe(200);
    expect(disabled.json.disabled).toBe(true);
    expect((await app.request("/api/v0/me", { headers: { cookie: person.cookie } })).status).toBe(401);
    const signIn = await app.request("/api/auth/sign-in/email", {
      method: "POST",
      json: { email: person.email, password: person.password },
    });
    expect(signIn.status).toBe(403);
    expect(signIn.json.message).toMatch(/disabled/);
    expect(signIn.headers.getSetCookie()).toEqual([]);
    // A wrong password still says only that: a disabled account is not revealed to a guesser.
    const guess = await app.request("/api/auth/sign-in/email", {
      method: "POST",
      json: { email: person.email, password: "a-wrong-guess-000" },
    });
    expect(guess.status).toBe(401);

    await app.request(`/api/v0/users/${person.id}`, {
      method: "PATCH",
      headers: { cookie: admin },
      json: { disabled: false },
    });
    const cookie = await app.signIn(person.email, person.password);
    expect((await app.request("/api/v0/me", { headers: { cookie } })).json.email).toBe(person.email);
  });

  it("deletes a person: their session ends, and the audit keeps their name", async () => {
    const person = await invitePerson(app, admin, {
      email: "leaver@example.test",
      role: "viewer",
      name: "Lee Ver",
    });
    const deleted = await app.request(`/api/v0/users/${person.id}`, {
      method: "DELETE",
      headers: { cookie: admin },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ deleted: true });
    expect((await app.request("/api/v0/me", { headers: { cookie: person.cookie } })).status).toBe(401);
    expect((await users()).map((listed: { email: string }) => listed.email)).not.toContain(person.email);
    const audit = await app.request("/api/v0/audit", { headers: { cookie: admin } });
    const entries = audit.json.entries as { action: string; target: string; actor: string; detail: object }[];
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: "user.deleted",
        target: person.email,
        detail: { name: "Lee Ver", role: "viewer" },
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ action: "invitation.accepted", actor: "Lee Ver" }),
    );
  });
});

describe("the last active admin", () => {
  it("cannot be demoted, disabled or deleted (409 saying why), until there is another admin", async () => {
    const self = (await app.request("/api/v0/me", { headers: { cookie: admin } })).json.id;
    // Other admins made by earlier tests are demoted first, so this one is the last.
    for (const person of await users()) {
      if (person.role === "admin" && person.id !== self) {
        await app.request(`/api/v0/users/${person.id}`, { method: "DELETE", headers: { cookie: admin } });
      }
    }
    for (const [method, json] of [
      ["PATCH", { role: "deployer" }],
      ["PATCH", { disabled: true }],
      ["DELETE", undefined],
    ] as const) {
      const refused = await app.request(`/api/v0/users/${self}`, {
        method,
        headers: { cookie: admin },
        json,
      });
      expect(refused.status).toBe(409);
      expect(refused.json.message).toMatch(/last active admin/);
    }
    expect((await app.request("/api/v0/me", { headers: { cookie: admin } })).json.role).toBe("admin");

    const second = await invitePerson(app, admin, { email: "second-admin@example.test", role: "admin" });
    const demoted = await app.request(`/api/v0/users/${self}`, {
      method: "PATCH",
      headers: { cookie: second.cookie },
      json: { role: "deployer" },
    });
    expect(demoted.status).toBe(200);
    const back = await app.request(`/api/v0/users/${self}`, {
      method: "PATCH",
      headers: { cookie: second.cookie },
      json: { role: "admin" },
    });
    expect(back.status).toBe(200);
    // A disabled admin does not count: with the second one disabled, this one is the last active admin.
    const disabled = await app.request(`/api/v0/users/${second.id}`, {
      method: "PATCH",
      headers: { cookie: admin },
      json: { disabled: true },
    });
    expect(disabled.status).toBe(200);
    const refused = await app.request(`/api/v0/users/${self}`, {
      method: "PATCH",
      headers: { cookie: admin },
      json: { role: "viewer" },
    });
    expect(refused.status).toBe(409);
  });

  it("stays one when two admins demote each other at the same moment, on PostgreSQL too", async () => {
    const team = await startTestBackend();
    try {
      const first = await team.signIn();
      const self = (await team.request("/api/v0/me", { headers: { cookie: first } })).json.id as string;
      const other = await invitePerson(team, first, { email: "other-admin@example.test", role: "admin" });
      const callerOf = (userId: string): Actor => ({ id: userId, name: userId });
      const { people } = team.backend.services;
      const activeAdmins = () =>
        team.backend.db
          .select({ id: user.id })
          .from(user)
          .where(and(eq(user.role, "admin"), eq(user.disabled, false)));
      // Connections ready for both transactions (on PostgreSQL), so neither waits for one to open.
      await Promise.all([activeAdmins(), activeAdmins(), activeAdmins()]);
      // Two requests already past their access check (as on two backends), each demoting the other:
      // their transactions interleave, so each would see two admins were the check not taking turns.
      const outcomes = await Promise.allSettled([
        people.update(callerOf(self), other.id, { role: "viewer" }),
        people.update(callerOf(other.id), self, { role: "viewer" }),
      ]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
      const refused = outcomes.find((outcome) => outcome.status === "rejected");
      expect(String(refused?.reason)).toMatch(/last active admin/);
      expect(await activeAdmins()).toHaveLength(1);
    } finally {
      await team.close();
    }
  });
});
