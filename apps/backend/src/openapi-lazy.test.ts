import { afterEach, expect, it } from "vitest";
import { startTestBackend } from "./testing/harness.ts";

const versionBefore = process.env.STACKGATE_VERSION;
afterEach(() => {
  if (versionBefore === undefined) delete process.env.STACKGATE_VERSION;
  else process.env.STACKGATE_VERSION = versionBefore;
});

// The document states the release version it was made with: it tells when it was made.
it("makes the OpenAPI document on the first GET /doc, not at start, and keeps it", async () => {
  process.env.STACKGATE_VERSION = "1.0.0-at-start";
  const app = await startTestBackend();
  try {
    process.env.STACKGATE_VERSION = "1.0.0-at-first-doc";
    const first = await app.request("/doc");
    expect(first.status).toBe(200);
    expect(first.json.info.version).toBe("1.0.0-at-first-doc");

    process.env.STACKGATE_VERSION = "1.0.0-later";
    expect((await app.request("/doc")).json).toEqual(first.json);
  } finally {
    await app.close();
  }
});
