import { createHash } from "node:crypto";
import { freePort } from "@stackgate/simulators";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invitation, user } from "../../db/schema.ts";
import { manualClock } from "../../testing/clock.ts";
import { ADMIN, APP_ORIGIN, startTestBackend, type TestBackend } from "../../testing/harness.ts";
import {
  type ProviderAccount,
  signInAtProvider,
  startTestProvider,
  type TestProvider,
} from "../../testing/oidc-provider.ts";
import { DISCOVERY_RETRY_MS } from "./provider.ts";

const ROLE_MAPPING = {
  OIDC_NAME: "Authentik",
  OIDC_ADMIN_VALUES: "stackgate-admins",
  OIDC_DEPLOYER_VALUES: "stackgate-deployers, ci",
  OIDC_VIEWER_VALUES: "everyone",
};

let provider: TestProvider;
let app: TestBackend;

beforeAll(async () => {
  provider = await startTestProvider({ appUrl: APP_ORIGIN });
  app = await startTestBackend({ env: { ...provider.env, ...ROLE_MAPPING } });
});
afterAll(async () => {
  await app?.close();
  await provider?.close();
});

const signIn = (login: string, account: ProviderAccount, options: { startQuery?: string } = {}) => {
  provider.setAccount(login, account);
  return signInAtProvider({ backendUrl: app.url, appUrl: APP_ORIGIN, login, ...options });
};

/** The test's own connection to the backend's database, to look at and arrange people directly. */
const databaseOf = (backend: TestBackend) => backend.backend.db;
const personByEmail = async (email: string) =>
  (await databaseOf(app).select().from(user).where(eq(user.email, email)))[0];

const sessionOf = async (cookie: string) =>
  (await app.request("/api/auth/get-session", { headers: { cookie } })).json;

describe("single sign-on with a real OpenID Provider", () => {
  it("tells the sign-in page that both ways are open", async () => {
    const options = await app.request("/api/v0/sign-in/options");
    expect(options.status).toBe(200);
    expect(options.json).toEqual({
      password: true,
      sso: {
        name: "Authentik",
        startUrl: "/api/auth/sso/start",
        autoRedirect: false,
        available: true,
        problem: null,
      },
    });
  });

  it("starts with PKCE S256, state and nonce, and keeps the transaction server-side behind an HttpOnly cookie", async () => {
    const start = await app.request("/api/auth/sso/start?returnTo=/history", { redirect: "manual" });
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get("location")!);
    expect(authorize.origin).toBe(provider.issuer);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get("state")).toMatch(/^[\w-]{20,}$/);
    expect(authorize.searchParams.get("nonce")).toMatch(/^[\w-]{20,}$/);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${APP_ORIGIN}/api/auth/sso/callback`);
    expect(authorize.searchParams.get("scope")).toBe("openid email profile groups");
    expect(authorize.search).not.toContain("history");
    const binding = start.headers.getSetCookie().find((cookie) => cookie.startsWith("stackgate_sso="));
    expect(binding).toMatch(/HttpOnly/i);
    expect(binding).toMatch(/SameSite=Lax/i);
    expect(binding).toMatch(/Path=\/api\/auth\/sso/);
  });

  it("signs a new person in with the role their group maps to, and applies the group again at the next sign-in", async () => {
    const first = await signIn(
      "sub-grace",
      {
        email: "grace@example.test",
        email_verified: true,
        name: "Grace Hopper",
        groups: ["stackgate-deployers"],
      },
      { startQuery: "?returnTo=%2Fhistory%3Fstack%3Dweb" },
    );
    expect(first.location).toBe("/history?stack=web");
    const session = await sessionOf(first.cookie);
    expect(session.user).toMatchObject({ email: "grace@example.test", name: "Grace Hopper" });
    expect(first.cookie).toMatch(/session_token=/);
    const stored = (await personByEmail("grace@example.test"))!;
    expect(stored).toMatchObject({ role: "deployer", roleFromSso: true });
    expect(stored.lastSignInAt).toBeInstanceOf(Date);

    // The provider moves Grace to the admins: the next sign-in makes her an admin here too.
    const second = await signIn("sub-grace", {
      email: "grace@example.test",
      email_verified: true,
      groups: ["everyone", "stackgate-admins"],
    });
    expect(second.location).toBe("/");
    expect(await personByEmail("grace@example.test")).toMatchObject({
      id: stored.id,
      role: "admin",
      roleFromSso: true,
    });
    // And to no group: refused, with the reason on the sign-in page. Grace no longer has access:
    // she is disabled at once, so her sessions and keys stop too, until an admin enables her.
    const key = await app.createApiKey(second.cookie, "grace-key");
    const third = await signIn("sub-grace", {
      email: "grace@example.test",
      email_verified: true,
      groups: [],
    });
    expect(third.location).toBe("/sign-in?sso_error=no-role");
    expect(await personByEmail("grace@example.test")).toMatchObject({ disabled: true, role: "admin" });
    expect(await sessionOf(second.cookie)).toBeNull();
    expect((await app.request("/api/v0/stacks", { headers: { "x-api-key": key.key } })).status).toBe(401);
    const adminCookie = await app.signIn();
    const entries = (await app.request("/api/v0/audit?limit=10", { headers: { cookie: adminCookie } })).json
      .entries as { action: string; target: string }[];
    const audit = entries.filter((entry) => entry.target === "grace@example.test");
    expect(audit.map((entry) => entry.action).slice(0, 3)).toEqual([
      "user.sso-refused",
      "user.sessions-revoked",
      "user.disabled",
    ]);
    expect(audit[2]).toMatchObject({
      actor: "single sign-on (Authentik)",
      target: "grace@example.test",
      detail: { via: "sso", reason: expect.stringContaining("no value of the groups claim maps to a role") },
    });
    const enabled = await app.request(`/api/v0/users/${stored.id}`, {
      method: "PATCH",
      headers: { cookie: adminCookie },
      json: { disabled: false },
    });
    expect(enabled.json).toMatchObject({ disabled: false });
  });

  it("refuses a person whose groups map to no role (OIDC_DEFAULT_ROLE defaults to refuse), creating nobody", async () => {
    const result = await signIn("sub-nobody", {
      email: "nobody@example.test",
      email_verified: true,
      groups: ["marketing"],
    });
    expect(result.location).toBe("/sign-in?sso_error=no-role");
    expect(result.cookie).not.toMatch(/session_token/);
    expect(await personByEmail("nobody@example.test")).toBeUndefined();
    expect(app.logLines.join("\n")).toMatch(
      /single sign-on refused.*no-role|no-role.*single sign-on refused/,
    );
  });

  it("links a verified email to the existing person, and then knows them by sub", async () => {
    const linked = await signIn("sub-ada", {
      email: ADMIN.email,
      email_verified: true,
      groups: ["stackgate-admins"],
    });
    expect(linked.location).toBe("/");
    expect((await sessionOf(linked.cookie)).user.email).toBe(ADMIN.email);
    // The provider changes the email: the person is still found by sub.
    const bySub = await signIn("sub-ada", {
      email: "ada@new-domain.test",
      email_verified: false,
      groups: ["stackgate-admins"],
    });
    expect((await sessionOf(bySub.cookie)).user.email).toBe(ADMIN.email);
  });

  it("never links an unverified email to an existing account", async () => {
    await app.addUser("linus@example.test", "linus-password-1", "Linus");
    const result = await signIn("sub-mallory", {
      email: "linus@example.test",
      email_verified: false,
      groups: ["stackgate-admins"],
    });
    expect(result.location).toBe("/sign-in?sso_error=unverified-email");
    expect(result.cookie).not.toMatch(/session_token/);
    expect(await personByEmail("linus@example.test")).toMatchObject({ roleFromSso: false });
  });

  it("refuses a disabled person", async () => {
    await signIn("sub-dora", { email: "dora@example.test", email_verified: true, groups: ["everyone"] });
    await databaseOf(app).transaction((tx) =>
      tx.update(user).set({ disabled: true }).where(eq(user.email, "dora@example.test")),
    );
    const result = await signIn("sub-dora", {
      email: "dora@example.test",
      email_verified: true,
      groups: ["everyone"],
    });
    expect(result.location).toBe("/sign-in?sso_error=disabled");
  });

  it("lets an invited person join with the invitation's role when no group maps, and uses the invitation up", async () => {
    const token = "invitation-token-for-ivy-0123456789";
    const tokenHash = createHash("sha256").update(token).digest("hex");
    await databaseOf(app).transaction((tx) =>
      tx.insert(invitation).values({
        id: "inv-ivy",
        email: "ivy@example.test",
        role: "deployer",
        tokenHash,
        invitedByName: ADMIN.name,
        expiresAt: new Date(Date.now() + 86_400_000),
      }),
    );
    const joined = await signIn(
      "sub-ivy",
      { email: "ivy@example.test", email_verified: true, groups: [] },
      { startQuery: `?invitation=${token}` },
    );
    expect(joined.location).toBe("/");
    expect(await personByEmail("ivy@example.test")).toMatchObject({ role: "deployer", roleFromSso: false });
    expect(
      (await databaseOf(app).select().from(invitation).where(eq(invitation.id, "inv-ivy")))[0]?.acceptedAt,
    ).toBeInstanceOf(Date);
    const reused = await signIn(
      "sub-ivan",
      { email: "ivan@example.test", email_verified: true, groups: [] },
      { startQuery: `?invitation=${token}` },
    );
    expect(reused.location).toBe("/sign-in?sso_error=invitation-invalid");
  });

  it("refuses an ID token with a bad signature", async () => {
    await provider.tamperIdTokens((claims) => claims, { foreignKey: true });
    try {
      const result = await signIn("sub-grace", {
        email: "grace@example.test",
        email_verified: true,
        groups: ["everyone"],
      });
      expect(result.location).toBe("/sign-in?sso_error=invalid-response");
      expect(result.cookie).not.toMatch(/session_token/);
    } finally {
      await provider.tamperIdTokens(null);
    }
    expect(app.logLines.join("\n")).toMatch(/signature/i);
  });

  it("refuses an ID token for another audience, and an expired one", async () => {
    for (const change of [
      (claims: Record<string, unknown>) => ({ ...claims, aud: "another-client" }),
      (claims: Record<string, unknown>) => ({
        ...claims,
        iat: (claims.iat as number) - 7200,
        exp: (claims.iat as number) - 3600,
      }),
    ]) {
      await provider.tamperIdTokens(change);
      try {
        const result = await signIn("sub-grace", {
          email: "grace@example.test",
          email_verified: true,
          groups: ["everyone"],
        });
        expect(result.location).toBe("/sign-in?sso_error=invalid-response");
      } finally {
        await provider.tamperIdTokens(null);
      }
    }
    const log = app.logLines.join("\n");
    expect(log).toMatch(/aud\W+\(audience\) claim value/);
    expect(log).toMatch(/exp\W+\(expiration time\)/);
  });

  it("refuses a replayed state: the callback works once", async () => {
    let callback = "";
    const first = await signInAtProvider({
      backendUrl: app.url,
      appUrl: APP_ORIGIN,
      login: "sub-grace",
      beforeCallback: (url) => {
        callback = url;
      },
    });
    expect(first.location).toBe("/");
    const replayed = await fetch(callback, { redirect: "manual", headers: { cookie: first.cookie } });
    expect(replayed.status).toBe(302);
    expect(replayed.headers.get("location")).toBe("/sign-in?sso_error=expired");
    expect(replayed.headers.getSetCookie().join()).not.toMatch(/session_token=[^;]/);
  });

  it("refuses a callback in a browser that did not start the sign-in", async () => {
    let callback = "";
    await signInAtProvider({
      backendUrl: app.url,
      appUrl: APP_ORIGIN,
      login: "sub-grace",
      beforeCallback: (url) => {
        callback = url;
        throw new Error("stop before the callback");
      },
    }).catch(() => {});
    const elsewhere = await fetch(callback, { redirect: "manual" });
    expect(elsewhere.headers.get("location")).toBe("/sign-in?sso_error=expired");
  });

  it("never sends the browser to another site after sign-in", async () => {
    for (const returnTo of [
      "https://evil.example/",
      "//evil.example/x",
      "/\\evil.example",
      // Each collapses into `//evil.example/x` once normalised.
      "/.//evil.example/x",
      "/..//evil.example/x",
      "/%2e//evil.example/x",
      "/./\\evil.example/x",
    ]) {
      const result = await signIn(
        "sub-grace",
        { email: "grace@example.test", email_verified: true, groups: ["everyone"] },
        { startQuery: `?returnTo=${encodeURIComponent(returnTo)}` },
      );
      expect(result.location, returnTo).toBe("/");
    }
  });

  it("answers a malformed invitation with 400 naming the field", async () => {
    const response = await app.request("/api/auth/sso/start?invitation=%3Cscript%3E", { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/invitation/);
  });

  it("signs out of the provider too: the answer sends the browser to its end_session_endpoint", async () => {
    const signedIn = await signIn("sub-grace", {
      email: "grace@example.test",
      email_verified: true,
      groups: ["everyone"],
    });
    const out = await app.request("/api/auth/sso/sign-out", {
      method: "POST",
      headers: { cookie: signedIn.cookie },
      json: {},
    });
    expect(out.status).toBe(200);
    const logout = new URL(out.json.redirectTo);
    expect(logout.origin).toBe(provider.issuer);
    expect(logout.searchParams.get("id_token_hint")).toMatch(/^ey/);
    expect(logout.searchParams.get("post_logout_redirect_uri")).toBe(`${APP_ORIGIN}/sign-in`);
    expect(await sessionOf(signedIn.cookie)).toBeNull();
    // A password session signs out here only.
    const password = await app.signIn();
    const passwordOut = await app.request("/api/auth/sso/sign-out", {
      method: "POST",
      headers: { cookie: password },
      json: {},
    });
    expect(passwordOut.json).toEqual({ redirectTo: "/sign-in" });
  });

  it("records who joined with single sign-on and whose role the provider changed, in the audit log", async () => {
    const cookie = await app.signIn();
    const audit = await app.request("/api/v0/audit?limit=100", { headers: { cookie } });
    expect(audit.status).toBe(200);
    const entries = audit.json.entries as {
      action: string;
      target: string;
      detail: Record<string, unknown>;
    }[];
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: "user.joined-with-sso",
        target: "grace@example.test",
        detail: { role: "deployer", roleFromSso: true },
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: "user.role-changed",
        target: "grace@example.test",
        detail: { from: "deployer", to: "admin", via: "sso" },
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ action: "invitation.accepted", target: "ivy@example.test" }),
    );
  });

  it("never logs or answers the client secret", () => {
    expect(app.logLines.join("\n")).not.toContain(provider.clientSecret);
    expect(app.responseBodies.join("\n")).not.toContain(provider.clientSecret);
  });
});

describe("password sign-in turned off", () => {
  let passwordless: TestBackend;
  beforeAll(async () => {
    passwordless = await startTestBackend({
      env: { ...provider.env, ...ROLE_MAPPING, PASSWORD_SIGN_IN: "false", OIDC_AUTO_REDIRECT: "true" },
    });
  });
  afterAll(() => passwordless?.close());

  it("refuses /api/auth/sign-in/email with 403 and says how to sign in, and the options say so", async () => {
    const refused = await passwordless.request("/api/auth/sign-in/email", {
      method: "POST",
      json: { email: ADMIN.email, password: ADMIN.password },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/PASSWORD_SIGN_IN=false.*Authentik/);
    expect(refused.headers.getSetCookie().join()).not.toMatch(/session_token/);
    const options = await passwordless.request("/api/v0/sign-in/options");
    expect(options.json).toMatchObject({ password: false, sso: { autoRedirect: true, available: true } });
  });

  it("refuses accepting an invitation with a password, before anything is written", async () => {
    const token = "invitation-token-for-quinn-0123456789";
    await databaseOf(passwordless).transaction((tx) =>
      tx.insert(invitation).values({
        id: "inv-quinn",
        email: "quinn@example.test",
        role: "viewer",
        tokenHash: createHash("sha256").update(token).digest("hex"),
        invitedByName: ADMIN.name,
        expiresAt: new Date(Date.now() + 86_400_000),
      }),
    );
    const refused = await passwordless.request("/api/v0/invitations/accept", {
      method: "POST",
      json: { token, name: "Quinn", password: "a-long-enough-password" },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/PASSWORD_SIGN_IN=false.*single sign-on/);
    const db = databaseOf(passwordless);
    expect(await db.select().from(user).where(eq(user.email, "quinn@example.test"))).toEqual([]);
    expect(
      (await db.select().from(invitation).where(eq(invitation.id, "inv-quinn")))[0]?.acceptedAt,
    ).toBeNull();
  });

  it("never demotes the last active admin: they keep the admin role, with a warning in the log", async () => {
    provider.setAccount("sub-root", { email: ADMIN.email, email_verified: true, groups: ["everyone"] });
    const result = await signInAtProvider({
      backendUrl: passwordless.url,
      appUrl: APP_ORIGIN,
      login: "sub-root",
    });
    expect(result.location).toBe("/");
    const [stored] = await databaseOf(passwordless).select().from(user).where(eq(user.email, ADMIN.email));
    expect(stored).toMatchObject({ role: "admin" });
    expect(passwordless.logLines.join("\n")).toMatch(/last active admin and keeps the admin role/);
  });

  it("still signs in with the provider", async () => {
    provider.setAccount("sub-pat", { email: "pat@example.test", email_verified: true, groups: ["everyone"] });
    const result = await signInAtProvider({
      backendUrl: passwordless.url,
      appUrl: APP_ORIGIN,
      login: "sub-pat",
    });
    expect(result.location).toBe("/");
    expect(result.cookie).toMatch(/session_token/);
  });
});

describe("a provider that is down at start", () => {
  it("logs one clear line, tells the sign-in page, keeps password sign-in, and is used once it comes up", async () => {
    const port = await freePort();
    const clock = manualClock();
    const backend = await startTestBackend({
      clock,
      env: {
        OIDC_ISSUER_URL: `http://127.0.0.1:${port}`,
        OIDC_CLIENT_ID: "stackgate",
        OIDC_CLIENT_SECRET: "down-provider-secret",
        OIDC_DEFAULT_ROLE: "viewer",
      },
    });
    let late: TestProvider | undefined;
    try {
      const down = await backend.request("/api/v0/sign-in/options");
      expect(down.json.sso).toMatchObject({ available: false });
      expect(down.json.sso.problem).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}.*cannot be reached`));
      const lines = backend.logLines.filter((line) => line.includes("single sign-on unavailable"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/ECONNREFUSED/);
      expect(backend.logLines.join("\n")).not.toContain("down-provider-secret");
      await backend.signIn();
      const start = await backend.request("/api/auth/sso/start", { redirect: "manual" });
      expect(start.headers.get("location")).toBe("/sign-in?sso_error=unavailable");

      late = await startTestProvider({ appUrl: APP_ORIGIN, port, clientSecret: "down-provider-secret" });
      // Within the retry interval the last answer stands; after it, the provider is asked again.
      expect((await backend.request("/api/v0/sign-in/options")).json.sso.available).toBe(false);
      clock.advance(DISCOVERY_RETRY_MS);
      expect((await backend.request("/api/v0/sign-in/options")).json.sso).toMatchObject({
        available: true,
        problem: null,
      });
      late.setAccount("sub-late", { email: "late@example.test", email_verified: true });
      const result = await signInAtProvider({
        backendUrl: backend.url,
        appUrl: APP_ORIGIN,
        login: "sub-late",
      });
      expect(result.location).toBe("/");
    } finally {
      await backend.close();
      await late?.close();
    }
  });

  it("names fetch's own refusal of the address (a bad port) rather than a bare 'fetch failed'", async () => {
    const backend = await startTestBackend({
      env: { OIDC_ISSUER_URL: "http://127.0.0.1:1", OIDC_CLIENT_ID: "stackgate", OIDC_CLIENT_SECRET: "s" },
    });
    try {
      const { sso } = (await backend.request("/api/v0/sign-in/options")).json;
      expect(sso.problem).toBe("the provider at http://127.0.0.1:1 cannot be reached (bad port)");
    } finally {
      await backend.close();
    }
  });
});

describe("without single sign-on configured", () => {
  it("offers password sign-in only, has no start, and signs out here", async () => {
    const plain = await startTestBackend();
    try {
      expect((await plain.request("/api/v0/sign-in/options")).json).toEqual({ password: true, sso: null });
      expect((await plain.request("/rpc/signIn/options", { method: "POST", json: {} })).json).toEqual({
        json: { password: true, sso: null },
      });
      const start = await plain.request("/api/auth/sso/start", { redirect: "manual" });
      expect(start.status).toBe(404);
      expect(start.json.message).toBe("Single sign-on is not configured");
      const cookie = await plain.signIn();
      const out = await plain.request("/api/auth/sso/sign-out", {
        method: "POST",
        headers: { cookie },
        json: {},
      });
      expect(out.json).toEqual({ redirectTo: "/sign-in" });
      expect((await plain.request("/api/auth/get-session", { headers: { cookie } })).json).toBeNull();
    } finally {
      await plain.close();
    }
  });
});
