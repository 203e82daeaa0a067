import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConnectedBackend, startTestBackend } from "../testing/harness.ts";

let world: Awaited<ReturnType<typeof startConnectedBackend>>;

beforeAll(async () => {
  world = await startConnectedBackend({
    komodo: {
      stacks: [{ name: "web", state: "running" }],
    },
  });
});
afterAll(() => world.close());

const check = (query: string, key = world.key) =>
  world.app.request(`/api/v0/deploy/check?${query}`, { headers: { "x-api-key": key } });
const newKey = async (name: string, scope: object) => {
  const created = await world.app.request("/api/v0/apikeys", {
    method: "POST",
    headers: { cookie: world.cookie },
    json: { name, scope },
  });
  return created.json.key as string;
};
const historyOf = async (stack: string) =>
  (await world.app.request(`/api/v0/history?stack=${stack}`, { headers: { cookie: world.cookie } })).json
    .history as Array<{ id: string; success: boolean; message: string }>;

describe("GET /api/v0/deploy/check", () => {
  it("says whether Komodo knows the stack, and deploys and records nothing", async () => {
    world.komodo.clearCalls();
    expect((await check("stack=web&action=pull-redeploy")).json).toEqual({
      stack: "web",
      action: "pull-redeploy",
      exists: true,
    });
    expect((await check("stack=no-such-stack&action=pull")).json).toEqual({
      stack: "no-such-stack",
      action: "pull",
      exists: false,
    });
    expect(world.komodo.calls.filter((call) => call.api === "execute")).toEqual([]);
    expect(await historyOf("web")).toEqual([]);
    expect(await historyOf("no-such-stack")).toEqual([]);
  });

  it("refuses what the deploy itself would refuse, with the same 403", async () => {
    const pullOnWeb = await newKey("pull-on-web", { stacks: ["web"], actions: ["pull"], read: [] });
    expect((await check("stack=web&action=pull", pullOnWeb)).json.exists).toBe(true);
    for (const [stack, action] of [
      ["web", "redeploy"],
      ["broken", "pull"],
    ]) {
      const checked = await check(`stack=${stack}&action=${action}`, pullOnWeb);
      const deployed = await world.app.request("/api/v0/deploy", {
        method: "POST",
        headers: { "x-api-key": pullOnWeb },
        json: { stack, action },
      });
      expect(checked.status).toBe(403);
      expect(checked.json.message).toBe(deployed.json.message);
    }
  });

  it("answers bad input with a 400 naming it", async () => {
    const badAction = await check("stack=web&action=restart");
    expect(badAction.status).toBe(400);
    expect(badAction.json.message).toMatch(/action must be one of pull, redeploy, pull-redeploy/);
    const badStack = await check("stack=..%2Fetc&action=pull");
    expect(badStack.status).toBe(400);
    expect(badStack.json.message).toMatch(/^stack: /);
    expect((await check("action=pull")).status).toBe(400);
  });

  it("without a Komodo connection: 503 with success false, as a deploy would be answered", async () => {
    const unconnected = await startTestBackend();
    try {
      const cookie = await unconnected.signIn();
      const { key } = await unconnected.createApiKey(cookie);
      const answer = await unconnected.request("/api/v0/deploy/check?stack=web&action=pull", {
        headers: { "x-api-key": key },
      });
      expect(answer.status).toBe(503);
      expect(answer.json).toMatchObject({ success: false, stack: "web", action: "pull" });
      expect(answer.json.message).toMatch(/Komodo/);
    } finally {
      await unconnected.close();
    }
  });
});
