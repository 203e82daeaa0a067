import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, APP_ORIGIN, startTestBackend, type TestBackend } from "../testing/harness.ts";

// Issue 30, finding 5: the origin guard skipped requests without a cookie, and the API took form
// bodies, so another site could post an invitation's acceptance and sign its visitor into the
// attacker's account (login CSRF).
let app: TestBackend;
let adminCookie: string;
beforeAll(async () => {
  app = await startTestBackend();
  adminCookie = await app.signIn();
});
afterAll(() => app.close());

async function inviteToken(email: string) {
  const invited = await app.request("/api/v0/users/invitations", {
    method: "POST",
    headers: { cookie: adminCookie },
    json: { email, role: "viewer" },
  });
  return (invited.json.url as string).split("/invite/")[1]!;
}

/** Sent as a browser would send it, through fetch with headers fetch itself would not set. */
const post = (path: string, headers: Record<string, string>, body: string) =>
  fetch(app.url + path, { method: "POST", headers, body, redirect: "manual" });

describe("a request another site sends", () => {
  it("cannot accept an invitation: a cross-site form post is refused and signs nobody in", async () => {
    const token = await inviteToken("victim@example.test");
    const form = new URLSearchParams({ token, name: "Mallory", password: "mallory-password-123" }).toString();
    const attempts: Record<string, string>[] = [
      { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
      { origin: "http://evil.example" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: "null" },
    ];
    for (const headers of attempts) {
      const answer = await post(
        "/api/v0/invitations/accept",
        { ...headers, "content-type": "application/x-www-form-urlencoded" },
        form,
      );
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.headers.getSetCookie()).toEqual([]);
    }
    const stillPending = await app.request("/api/v0/invitations/inspect", {
      method: "POST",
      json: { token },
    });
    expect(stillPending.status, stillPending.text).toBe(200);
  });

  it("cannot sign anyone in, with or without a cookie", async () => {
    const answer = await post(
      "/api/auth/sign-in/email",
      { origin: "http://evil.example", "content-type": "application/json" },
      JSON.stringify({ email: ADMIN.email, password: ADMIN.password }),
    );
    expect(answer.status).toBe(403);
    expect(answer.headers.getSetCookie()).toEqual([]);
  });

  it("cannot act with an API key either (pipelines send no Origin; browsers from elsewhere do)", async () => {
    const { key } = await app.createApiKey(adminCookie, "cross-site");
    const answer = await post(
      "/api/v0/deploy",
      { origin: "http://evil.example", "x-api-key": key, "content-type": "application/json" },
      JSON.stringify({ stack: "web", action: "pull" }),
    );
    expect(answer.status).toBe(403);
  });
});

describe("the REST API's bodies", () => {
  it.each([
    ["a form", "application/x-www-form-urlencoded", "stack=web&action=pull"],
    ["plain text", "text/plain", '{"stack":"web","action":"pull"}'],
    [
      "multipart",
      "multipart/form-data; boundary=x",
      '--x\r\nContent-Disposition: form-data; name="stack"\r\n\r\nweb\r\n--x--',
    ],
  ])("are JSON only: %s from this very site is a 415", async (_, type, body) => {
    const answer = await post(
      "/api/v0/users/invitations",
      { origin: APP_ORIGIN, cookie: adminCookie, "content-type": type },
      body,
    );
    expect(answer.status).toBe(415);
    expect(await answer.json()).toMatchObject({
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: expect.stringContaining("application/json"),
    });
  });

  it("a JSON body without its type is a 415 too; with it, the same request works", async () => {
    const body = JSON.stringify({ email: "typed@example.test", role: "viewer" });
    const untyped = await fetch(`${app.url}/api/v0/users/invitations`, {
      method: "POST",
      headers: { origin: APP_ORIGIN, cookie: adminCookie },
      body: new Blob([body]),
    });
    expect(untyped.status).toBe(415);
    const typed = await post(
      "/api/v0/users/invitations",
      { origin: APP_ORIGIN, cookie: adminCookie, "content-type": "application/json; charset=utf-8" },
      body,
    );
    expect(typed.status).toBe(200);
  });
});
