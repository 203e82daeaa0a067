import type { KomodoSimulator } from "@stackgate/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openEventStream } from "../testing/event-stream.ts";
import { startConnectedBackend, startTestBackend, type TestBackend } from "../testing/harness.ts";

let komodo: KomodoSimulator;
let app: TestBackend;
let cookie: string;
let key: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ komodo, app, cookie, key, close } = await startConnectedBackend({ komodo: { stacks: 120 } }));
  komodo.addStack({
    name: "shop",
    services: [
      { service: "web", image: "ghcr.io/acme/shop:2.0", updateAvailable: true },
      { service: "worker", image: "ghcr.io/acme/shop:2.0" },
      { service: "db", image: "postgres:16-alpine" },
    ],
  });
  komodo.addStack({ name: "sleepy", state: "down" });
});
afterAll(() => close());
beforeEach(() => komodo.clearCalls());

const list = async () => (await app.request("/api/v0/stacks", { headers: { "x-api-key": key } })).json.stacks;

describe("stack list", () => {
  it("lists all 122 stacks, every page requested", async () => {
    const stacks = await list();
    expect(stacks).toHaveLength(122);
    expect(new Set(stacks.map((stack: { name: string }) => stack.name)).size).toBe(122);
  });

  it("shows state, status, services with update markers and the distinct images", async () => {
    const shop = (await list()).find((stack: { name: string }) => stack.name === "shop");
    expect(shop).toEqual({
      id: komodo.inspectStack("shop")!.id,
      name: "shop",
      state: "running",
      status: expect.stringMatching(/running/),
      info: {
        services: [
          { service: "web", image: "ghcr.io/acme/shop:2.0", update_available: true },
          { service: "worker", image: "ghcr.io/acme/shop:2.0", update_available: false },
          { service: "db", image: "postgres:16-alpine", update_available: false },
        ],
      },
      images: ["ghcr.io/acme/shop:2.0", "postgres:16-alpine"],
    });
  });

  it("answers the REST list exactly as the dashboard's oRPC procedure answers it", async () => {
    const rest = await app.request("/api/v0/stacks", { headers: { "x-api-key": key } });
    const rpc = await app.request("/rpc/stacks/list", { method: "POST", headers: { cookie }, json: {} });
    expect(rest.status).toBe(200);
    expect(rest.headers.get("content-type")).toBe("application/json");
    expect(rest.json).toEqual(rpc.json.json);
    expect(rest.text).toBe(JSON.stringify(rpc.json.json));
  });

  it("is read live on every request, never cached", async () => {
    await list();
    komodo.setService("shop", "db", { image: "postgres:17-alpine" });
    const shop = (await list()).find((stack: { name: string }) => stack.name === "shop");
    expect(shop.images).toContain("postgres:17-alpine");
    expect(komodo.calls.filter((call) => call.type === "ListStacks").length).toBeGreaterThanOrEqual(2);
  });
});

describe("poll for updates", () => {
  it("turns Komodo's update check on and off", async () => {
    const on = await app.request("/api/v0/stacks/shop/poll-for-updates", {
      method: "PUT",
      headers: { cookie },
      json: { enabled: true },
    });
    expect(on.status).toBe(200);
    expect(on.json).toEqual({ stack: "shop", enabled: true });
    expect(komodo.calls.at(-1)).toMatchObject({
      type: "UpdateStack",
      params: { id: "shop", config: { poll_for_updates: true } },
    });
  });

  it("reads Komodo's current setting, whether it was changed here or in Komodo", async () => {
    komodo.addStack({ name: "watched", pollForUpdates: true });
    const read = (stack: string) =>
      app.request(`/api/v0/stacks/${stack}/poll-for-updates`, { headers: { cookie } });
    const watched = await read("watched");
    expect(watched.status).toBe(200);
    expect(watched.json).toEqual({ stack: "watched", enabled: true });
    expect(komodo.calls.at(-1)).toMatchObject({
      api: "read",
      type: "GetStack",
      params: { stack: "watched" },
    });
    expect((await read("sleepy")).json).toEqual({ stack: "sleepy", enabled: false });

    await app.request("/api/v0/stacks/watched/poll-for-updates", {
      method: "PUT",
      headers: { cookie },
      json: { enabled: false },
    });
    expect((await read("watched")).json).toEqual({ stack: "watched", enabled: false });
  });

  it("reading answers 502 with Komodo's reason for an unknown stack, 403 to an API key, 400 to a bad name", async () => {
    const unknown = await app.request("/api/v0/stacks/ghost/poll-for-updates", { headers: { cookie } });
    expect(unknown.status).toBe(502);
    expect(unknown.json.message).toMatch(/Did not find any Stack matching ghost/);
    komodo.clearCalls();
    const byKey = await app.request("/api/v0/stacks/shop/poll-for-updates", {
      headers: { "x-api-key": key },
    });
    expect(byKey.status).toBe(403);
    const badName = await app.request("/api/v0/stacks/a..b/poll-for-updates", { headers: { cookie } });
    expect(badName.status).toBe(400);
    expect(badName.json.message).toMatch(/stack must not contain '\.\.'/);
    expect(komodo.calls).toEqual([]);
  });

  it("reading answers 503 without a Komodo connection", async () => {
    const unconnected = await startTestBackend();
    try {
      const response = await unconnected.request("/api/v0/stacks/shop/poll-for-updates", {
        headers: { cookie: await unconnected.signIn() },
      });
      expect(response.status).toBe(503);
      expect(response.json.message).toMatch(/Komodo/);
    } finally {
      await unconnected.close();
    }
  });

  it("refuses a missing or non-boolean flag and a bad name, sending nothing", async () => {
    for (const [path, json] of [
      ["/api/v0/stacks/shop/poll-for-updates", {}],
      ["/api/v0/stacks/shop/poll-for-updates", { enabled: "yes" }],
      ["/api/v0/stacks/a..b/poll-for-updates", { enabled: true }],
    ] as const) {
      const response = await app.request(path, { method: "PUT", headers: { cookie }, json });
      expect(response.status).toBe(400);
    }
    expect(komodo.calls).toEqual([]);
  });
});

describe("delete", () => {
  it("takes a running stack down first, then deletes it", async () => {
    const response = await app.request("/api/v0/stacks/shop", { method: "DELETE", headers: { cookie } });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ deleted: true, stack: "shop" });
    const writes = komodo.calls.filter((call) => call.api !== "read").map((call) => call.type);
    expect(writes).toEqual(["DestroyStack", "DeleteStack"]);
    expect(komodo.inspectStack("shop")).toBeUndefined();
  });

  it("deletes a stack that is down without taking it down", async () => {
    await app.request("/api/v0/stacks/sleepy", { method: "DELETE", headers: { cookie } });
    expect(komodo.calls.filter((call) => call.api !== "read").map((call) => call.type)).toEqual([
      "DeleteStack",
    ]);
  });

  it("answers 502 with Komodo's reason for an unknown stack", async () => {
    const response = await app.request("/api/v0/stacks/ghost", { method: "DELETE", headers: { cookie } });
    expect(response.status).toBe(502);
    expect(response.json.message).toMatch(/Did not find any Stack matching ghost/);
  });

  it("and a deploy of the same stack wait for each other", async () => {
    komodo.addStack({ name: "contested" });
    komodo.faults.setStack("contested", { holdUpdates: true });
    const events = await openEventStream(`${app.url}/api/v0/deploy/events`, { cookie });
    try {
      expect(await events.next()).toMatchObject({ type: "subscribed" });
      const deleting = app.request("/api/v0/stacks/contested", { method: "DELETE", headers: { cookie } });
      await komodo.whenHeld("contested");
      const deploying = app.request("/api/v0/deploy", {
        method: "POST",
        headers: { cookie },
        json: { stack: "contested", action: "pull" },
      });
      // The deploy is on record and queued behind the delete, whose DestroyStack is still running.
      expect(await events.next()).toMatchObject({ type: "started", run: { stack: "contested" } });
      komodo.releaseUpdates("contested");
      expect((await deleting).status).toBe(200);
      // The stack is gone by the time the deploy reaches Komodo, which says it knows no such stack.
      const deployed = await deploying;
      expect(deployed.status).toBe(404);
      expect(deployed.json.message).toMatch(/^Komodo has no stack named 'contested': nothing was deployed/);
      const writes = komodo.calls.filter((call) => call.api !== "read").map((call) => call.type);
      expect(writes).toEqual(["DestroyStack", "DeleteStack", "PullStack"]);
    } finally {
      events.close();
    }
  });

  it("refuses an API key with 403 before anything reaches Komodo", async () => {
    const response = await app.request("/api/v0/stacks/web-001", {
      method: "DELETE",
      headers: { "x-api-key": key },
    });
    expect(response.status).toBe(403);
    expect(komodo.calls).toEqual([]);
  });
});
