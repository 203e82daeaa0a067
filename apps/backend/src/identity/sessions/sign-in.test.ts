import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, startTestBackend, type TestBackend } from "../../testing/harness.ts";

let app: TestBackend;
beforeAll(async () => {
  app = await startTestBackend();
});
afterAll(() => app.close());

describe("sign-in", () => {
  it("signs the seeded admin in with an HttpOnly, SameSite=Lax session cookie", async () => {
    const response = await app.request("/api/auth/sign-in/email", {
      method: "POST",
      json: { email: ADMIN.email, password: ADMIN.password },
    });
    expect(response.status).toBe(200);
    const cookie = response.headers.getSetCookie().find((value) => value.includes("session_token"));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const session = await app.request("/api/auth/get-session", {
      headers: { cookie: cookie!.split(";")[0] },
    });
    expect(session.json.user.email).toBe(ADMIN.email);
  });

  it("refuses a wrong password", async () => {
    const response = await app.request("/api/auth/sign-in/email", {
      method: "POST",
      json: { email: ADMIN.email, password: "not-the-password" },
    });
    expect(response.status).toBe(401);
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it("refuses public sign-up", async () => {
    const response = await app.request("/api/auth/sign-up/email", {
      method: "POST",
      json: { email: "mallory@example.test", password: "mallory-password", name: "Mallory" },
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    await expect(app.signIn("mallory@example.test", "mallory-password")).rejects.toThrow(/sign-in failed/);
  });

  it.each([
    ["GET", "/api/auth/verify-email?token=x&callbackURL=%2F.%2F%2Fevil.example%2Fx"],
    ["GET", "/api/auth/reset-password/x?callbackURL=%2F.%2F%2Fevil.example%2Fx"],
    ["POST", "/api/auth/request-password-reset"],
    ["POST", "/api/auth/update-user"],
  ])(
    "closes Better Auth's %s %s, which Stackgate does not use (no redirect elsewhere)",
    async (method, path) => {
      const response = await app.request(path, {
        method,
        redirect: "manual",
        json: method === "POST" ? {} : undefined,
      });
      expect(response.status).toBe(404);
      expect(response.headers.get("location")).toBeNull();
    },
  );

  it("signs out: the old cookie no longer opens a session", async () => {
    const cookie = await app.signIn();
    expect((await app.request("/api/v0/apikeys", { headers: { cookie } })).status).toBe(200);
    const out = await app.request("/api/auth/sign-out", { method: "POST", headers: { cookie }, json: {} });
    expect(out.status).toBe(200);
    expect((await app.request("/api/v0/apikeys", { headers: { cookie } })).status).toBe(401);
  });

  it("refuses a state-changing cookie request from another origin", async () => {
    const cookie = await app.signIn();
    const crossSite = await app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie, origin: "https://evil.example" },
      json: { name: "stolen" },
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json.message).toMatch(/cross-origin/i);
    const listed = await app.request("/api/v0/apikeys", { headers: { cookie } });
    expect(listed.json.keys.map((key: { name: string }) => key.name)).not.toContain("stolen");
    const sameSite = await app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie, "sec-fetch-site": "cross-site", origin: "" },
      json: { name: "stolen-too" },
    });
    expect(sameSite.status).toBe(403);
  });
});
