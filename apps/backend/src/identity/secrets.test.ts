import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN, startTestBackend, type TestBackend } from "../testing/harness.ts";

let app: TestBackend;
beforeAll(async () => {
  app = await startTestBackend();
});
afterAll(() => app.close());

it("never lets the password or an API key into a response or a log line", async () => {
  const cookie = await app.signIn();
  await app.request("/api/auth/sign-in/email", {
    method: "POST",
    json: { email: ADMIN.email, password: "wrong-password" },
  });
  const created = await app.createApiKey(cookie, "canary");
  const creationResponses = app.responseBodies.filter((body) => body.includes(created.key));
  expect(creationResponses).toHaveLength(1);

  await app.request("/api/v0/apikeys", { headers: { "x-api-key": created.key } });
  await app.request("/api/v0/apikeys", { headers: { cookie } });
  await app.request("/api/v0/apikeys", { method: "POST", headers: { cookie }, json: { name: created.key } });
  await app.request("/api/v0/apikeys", { method: "DELETE", headers: { cookie }, json: { id: created.id } });
  await app.request("/api/v0/apikeys", { headers: { "x-api-key": created.key } });
  await app.request("/doc");

  const laterBodies = app.responseBodies.filter((body) => !body.includes(`"key":"${created.key}"`));
  for (const body of laterBodies) {
    expect(body).not.toContain(ADMIN.password);
  }
  // The key itself was sent back as a name once (the caller chose to); never otherwise.
  expect(laterBodies.filter((body) => body.includes(created.key)).length).toBeLessThanOrEqual(1);
  expect(app.logLines.length).toBeGreaterThan(5);
  for (const line of app.logLines) {
    expect(line).not.toContain(ADMIN.password);
    expect(line).not.toContain(created.key);
  }
});
