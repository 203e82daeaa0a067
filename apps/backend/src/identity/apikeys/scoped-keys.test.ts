import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../../testing/clock.ts";
import { openEventStream } from "../../testing/event-stream.ts";
import { startConnectedBackend } from "../../testing/harness.ts";

const clock = manualClock();
let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let cookie: string;
let pipelineKey: string;

const createKey = async (json: unknown) => {
  const created = await world.app.request("/api/v0/apikeys", { method: "POST", headers: { cookie }, json });
  expect(created.status, created.text).toBe(200);
  return created.json as { id: string; key: string; scope: unknown; expiresAt: string | null };
};
const deploy = (key: string, stack: string, action: string) =>
  world.app.request("/api/v0/deploy", {
    method: "POST",
    headers: { "x-api-key": key },
    json: { stack, action },
  });
const get = (key: string, path: string) => world.app.request(path, { headers: { "x-api-key": key } });

beforeAll(async () => {
  world = await startConnectedBackend({
    clock,
    komodo: {
      stacks: [
        { name: "web-1", services: [{ service: "web", image: "acme/web:1" }] },
        { name: "web-2", services: [{ service: "web", image: "acme/web:2" }] },
        { name: "api", services: [{ service: "api", image: "acme/api:1" }] },
      ],
    },
  });
  cookie = world.cookie;
  pipelineKey = (await createKey({ name: "web-pull", scope: { stacks: ["web-*"], actions: ["pull"] } })).key;
});
afterAll(() => world.close());

describe("a key scoped to web-* and pull", () => {
  it("pulls web-1", async () => {
    const response = await deploy(pipelineKey, "web-1", "pull");
    expect(response.status, response.text).toBe(200);
    expect(response.json.success).toBe(true);
  });

  it("gets 403 on another stack and on another action, naming what it may do, and nothing runs", async () => {
    const before = (await world.app.request("/api/v0/history", { headers: { cookie } })).json.history.length;
    for (const [stack, action] of [
      ["api", "pull"],
      ["web-1", "redeploy"],
      ["web-1", "pull-redeploy"],
    ]) {
      const refused = await deploy(pipelineKey, stack!, action!);
      expect(refused.status).toBe(403);
      expect(refused.json.code).toBe("FORBIDDEN");
      expect(refused.json.message).toContain(`may not ${action} '${stack}'`);
      expect(refused.json.message).toContain("It may: pull on stacks web-*");
    }
    const after = (await world.app.request("/api/v0/history", { headers: { cookie } })).json.history.length;
    expect(after).toBe(before);
  });

  it("sees only web-* in the stack list, the history, the overview and the images", async () => {
    await deploy(world.key, "api", "pull");
    const stacks = await get(pipelineKey, "/api/v0/stacks");
    expect(stacks.json.stacks.map((stack: { name: string }) => stack.name).sort()).toEqual([
      "web-1",
      "web-2",
    ]);

    const history = await get(pipelineKey, "/api/v0/history");
    expect(history.json.history.length).toBeGreaterThan(0);
    expect(history.json.history.every((entry: { stack: string }) => entry.stack.startsWith("web-"))).toBe(
      true,
    );
    const everything = await world.app.request("/api/v0/history", { headers: { cookie } });
    expect(everything.json.history.some((entry: { stack: string }) => entry.stack === "api")).toBe(true);

    const overview = await get(pipelineKey, "/api/v0/history/overview");
    expect(overview.json.perStack.map((entry: { stack: string }) => entry.stack)).toEqual(["web-1"]);
    expect(overview.json.total).toBe(1);

    const images = await get(pipelineKey, "/api/v0/security/images");
    expect(images.json.images.map((entry: { image: string }) => entry.image).sort()).toEqual([
      "acme/web:1",
      "acme/web:2",
    ]);
    expect((await get(pipelineKey, "/api/v0/security/image?image=acme/api:1")).status).toBe(404);
    const scanOther = await world.app.request("/api/v0/security/scan", {
      method: "POST",
      headers: { "x-api-key": pipelineKey },
      json: { images: ["acme/api:1"] },
    });
    expect(scanOther.status).toBe(400);
  });

  it("sees only web-* runs in the event stream", async () => {
    const stream = await openEventStream(`${world.app.url}/api/v0/deploy/events`, {
      "x-api-key": pipelineKey,
    });
    try {
      expect((await stream.next()).type).toBe("subscribed");
      await deploy(world.key, "api", "pull");
      await deploy(world.key, "web-2", "pull");
      const started = await stream.next();
      expect(started).toMatchObject({ type: "started", run: { stack: "web-2" } });
      expect((await stream.next()).run.stack).toBe("web-2");
    } finally {
      stream.close();
    }
  });
});

describe("reads and expiry", () => {
  it("refuses a read area the scope leaves out, naming what the key may do", async () => {
    const { key } = await createKey({ name: "deploy-only", scope: { actions: ["redeploy"], read: [] } });
    const refused = await get(key, "/api/v0/history");
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      "This API key may not read history. It may: redeploy on every stack; read nothing",
    );
    const stacks = await get(key, "/api/v0/stacks");
    expect(stacks.status).toBe(403);
    expect(stacks.json.message).toBe(
      "This API key may not read stacks. It may: redeploy on every stack; read nothing",
    );
    // A key that may deploy follows the runs it starts, and only those, whatever it may read.
    const stream = await openEventStream(`${world.app.url}/api/v0/deploy/events`, { "x-api-key": key });
    try {
      expect(await stream.next()).toEqual({ type: "subscribed", running: [] });
      await deploy(world.key, "web-2", "pull");
      expect((await deploy(key, "api", "redeploy")).status).toBe(200);
      expect(await stream.next()).toMatchObject({ type: "started", run: { stack: "api" } });
    } finally {
      stream.close();
    }
  });

  it("answers 401 once a key has expired, and lists scope and expiry", async () => {
    const expiresAt = new Date(clock.now() + 3_600_000).toISOString();
    const created = await createKey({ name: "temporary", expiresAt, scope: { read: ["stacks"] } });
    expect(created.expiresAt).toBe(expiresAt);
    expect((await get(created.key, "/api/v0/stacks")).status).toBe(200);
    clock.advance(3_600_000);
    const expired = await get(created.key, "/api/v0/stacks");
    expect(expired.status).toBe(401);
    expect(expired.json.message).toBe(`The API key expired at ${expiresAt}; create a new one in Settings`);
    const listed = await world.app.request("/api/v0/apikeys", { headers: { cookie } });
    expect(listed.json.keys.find((key: { id: string }) => key.id === created.id)).toMatchObject({
      scope: { read: ["stacks"] },
      expiresAt,
    });
  });

  it("keeps the full key rights of a key without a scope", async () => {
    expect((await deploy(world.key, "api", "redeploy")).status).toBe(200);
    const listed = await world.app.request("/api/v0/apikeys", { headers: { cookie } });
    expect(listed.json.keys.find((key: { name: string }) => key.name === "ci-pipeline").scope).toBeNull();
  });

  it.each([
    [{ name: "x", expiresAt: "tomorrow" }, /expiresAt/],
    [{ name: "x", expiresAt: "2020-01-01T00:00:00Z" }, /expiresAt must be in the future/],
    [{ name: "x", scope: { stacks: ["web/*"] } }, /scope\.stacks\.0/],
    [{ name: "x", scope: { actions: ["destroy"] } }, /scope\.actions\.0/],
    [{ name: "x", scope: { read: ["secrets"] } }, /read may list only/],
    [{ name: "x", scope: { admin: true } }, /admin/],
  ])("refuses %j with a 400 naming the problem", async (json, message) => {
    const response = await world.app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie },
      json,
    });
    expect(response.status).toBe(400);
    expect(response.json.message).toMatch(message);
  });
});
