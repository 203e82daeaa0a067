import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestBackend, type TestBackend } from "./testing/harness.ts";

// Issue 30, finding 4, at the backend too: a route is reached by one spelling only, so nothing
// counted by path (the gateway's stream limit, the graceful stop's wait for event streams) is
// escaped by another spelling, even where the backend is reached directly.
let app: TestBackend;
let key: string;
beforeAll(async () => {
  app = await startTestBackend();
  key = (await app.createApiKey(await app.signIn())).key;
});
afterAll(() => app.close());

/** A raw request target, sent as written (fetch would normalise the dot segments). */
async function send(method: string, target: string) {
  const { request } = await import("node:http");
  const url = new URL(app.url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const sent = request(
      { host: url.hostname, port: url.port, method, path: target, headers: { "x-api-key": key } },
      (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk;
          if (response.headers["content-type"]?.startsWith("text/event-stream")) response.destroy();
        });
        response.on("close", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    sent.on("error", reject);
    sent.end();
  });
}

it.each([
  "/api/v0/deploy/events/",
  "/api/v0/deploy/events/.",
  "/api/v0/deploy//events",
  "/api/v0/./deploy/events",
  "/api/v0/x/../deploy/events",
  "/api/v0/deploy/%65vents",
  "/api/v0/deploy/events#x",
  "/rpc/deploy/events/",
])("refuses %s with a 400 naming the canonical path", async (target) => {
  const answer = await send("GET", target);
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({
    code: "NON_CANONICAL_PATH",
    message: expect.stringContaining("use /"),
  });
});

it("refuses a deploy spelt otherwise before anything runs, and serves the canonical spellings", async () => {
  expect((await send("POST", "/api/v0/deploy/")).status).toBe(400);
  expect((await send("GET", "/api/v0/deploy/events")).status).toBe(200);
  expect((await send("GET", "/api/v0/history?limit=1")).status).toBe(200);
});
