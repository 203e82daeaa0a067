import type { KomodoSimulator } from "@stackgate/simulators";
import { afterEach, describe, expect, it } from "vitest";
import { openEventStream } from "../testing/event-stream.ts";
import { startConnectedBackend, type TestBackend } from "../testing/harness.ts";

/**
 * Komodo's update stream (/ws/update) end to end: the real backend against the simulator on the
 * wire, deploys answered from the stream's messages, and polling whenever the stream is not logged in.
 */

const STACKS = [
  { name: "web", state: "running" as const },
  { name: "api", state: "running" as const },
  { name: "broken", faults: { failWith: "manifest for acme/broken:2 not found" } },
  { name: "held", faults: { holdUpdates: true, failWith: "pull access denied for acme/held" } },
];

let world: Awaited<ReturnType<typeof startConnectedBackend>> | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function start(faults: Parameters<typeof startConnectedBackend>[0]["komodo"]["faults"] = {}) {
  world = await startConnectedBackend({ komodo: { stacks: STACKS, faults } });
  return world;
}

const client = (app: TestBackend) => app.backend.services.connection.requireClient();
const deploy = (app: TestBackend, cookie: string, stack: string, action: string) =>
  app.request("/api/v0/deploy", { method: "POST", headers: { cookie }, json: { stack, action } });
const getUpdates = (komodo: KomodoSimulator) => komodo.calls.filter((call) => call.type === "GetUpdate");
const streamState = async (app: TestBackend, cookie: string) =>
  (await app.request("/api/v0/deploy/credentials", { headers: { cookie } })).json.updateStream;

describe("deploys follow Komodo's update stream", () => {
  it("answers each step from its Complete message, and reads each completed Update once, for its stages", async () => {
    const { app, komodo, cookie } = await start();
    await client(app).whenFollowing();
    expect(await streamState(app, cookie)).toEqual({ status: "connected", reason: null });

    const done = await deploy(app, cookie, "web", "pull-redeploy");
    expect(done.status).toBe(200);
    expect(komodo.calls.filter((call) => call.api === "execute").map((call) => call.type)).toEqual([
      "PullStack",
      "DestroyStack",
      "DeployStack",
    ]);
    // No polling: one read of each step's Update once its Complete message came (its stages' output).
    const executes = komodo.calls.filter((call) => call.api === "execute");
    expect(getUpdates(komodo)).toHaveLength(executes.length);

    komodo.clearCalls();
    const failed = await deploy(app, cookie, "broken", "pull");
    expect(failed.status).toBe(502);
    expect(failed.json.message).toContain("manifest for acme/broken:2 not found");
    expect(getUpdates(komodo)).toHaveLength(1);
  });

  it("falls back to polling when the stream's login is refused, and says why", async () => {
    const { app, komodo, cookie } = await start({ refuseUpdateLogin: true });
    const state = await client(app).whenStreamState((next) => next.status === "disconnected");
    expect(state.reason).toBe(
      "Komodo refused the login: failed to authenticate user using api keys | Invalid user credentials",
    );
    expect(await streamState(app, cookie)).toEqual(state);

    const done = await deploy(app, cookie, "web", "pull");
    expect(done.status).toBe(200);
    expect(getUpdates(komodo).length).toBeGreaterThan(0);
    const secret = komodo.secret;
    expect(app.logLines.join("\n")).not.toContain(secret);
    expect(app.responseBodies.join("\n")).not.toContain(secret);
  });

  it("falls back to polling when the websocket upgrade is refused, and follows the stream once it opens", async () => {
    const { app, komodo, cookie } = await start({ refuseUpdateStream: true });
    const state = await client(app).whenStreamState((next) => next.status === "disconnected");
    expect(state.reason).toMatch(/could not be opened.*does not pass websocket upgrades/);

    const failed = await deploy(app, cookie, "broken", "pull-redeploy");
    expect(failed.status).toBe(502);
    expect(failed.json.message).toContain("manifest for acme/broken:2 not found");
    expect(getUpdates(komodo).length).toBeGreaterThan(0);

    await komodo.faults.set({ refuseUpdateStream: undefined });
    await client(app).whenFollowing();
    komodo.clearCalls();
    expect((await deploy(app, cookie, "web", "pull")).status).toBe(200);
    expect(getUpdates(komodo)).toHaveLength(1);
  });

  it("a deploy whose stream drops while Komodo finishes still ends with Komodo's outcome", async () => {
    const { app, komodo, cookie } = await start();
    await client(app).whenFollowing();
    const answered = deploy(app, cookie, "held", "pull");
    await komodo.whenHeld("held");
    // The socket goes away, and the Update completes while no socket is there: its message is lost.
    komodo.updateStream.drop();
    komodo.releaseUpdates("held");
    const response = await answered;
    expect(response.status).toBe(502);
    expect(response.json.message).toBe("PullStack failed: pull access denied for acme/held");
    await client(app).whenFollowing();
    expect(await streamState(app, cookie)).toEqual({ status: "connected", reason: null });
  });

  it("closes the stream when the connection is removed", async () => {
    const { app, cookie } = await start();
    await client(app).whenFollowing();
    const following = client(app);
    const removed = await app.request("/api/v0/deploy/credentials", {
      method: "DELETE",
      headers: { cookie },
      json: { name: "komodo" },
    });
    expect(removed.status).toBe(200);
    expect(following.updateStream()).toEqual({ status: "disconnected", reason: "closed" });
  });
});

describe("deploys Stackgate did not start", () => {
  it("appear on the event stream as they happen, marked as Komodo's, and stay out of the history", async () => {
    const { app, komodo, cookie, key } = await start();
    await client(app).whenFollowing();
    const events = await openEventStream(`${app.url}/api/v0/deploy/events`, { "x-api-key": key });
    try {
      expect(await events.next()).toEqual({ type: "subscribed", running: [] });
      // Stackgate's own deploy is published once, as its own.
      expect((await deploy(app, cookie, "web", "pull")).status).toBe(200);
      expect(await events.next()).toMatchObject({ type: "started", run: { stack: "web" } });
      // Each step Komodo begins is published as `started` again, with the step.
      expect(await events.next()).toMatchObject({ type: "started", run: { stack: "web", step: "pull" } });
      expect(await events.next()).toMatchObject({ type: "log", stack: "web" });
      const own = await events.next();
      expect(own).toMatchObject({ type: "finished", run: { stack: "web", success: true } });
      expect(own.run.source).toBeUndefined();

      const outside = komodo.startExternalDeploy("api", { durationMs: 1 });
      const started = await events.next();
      expect(started).toEqual({
        type: "started",
        run: {
          id: `komodo:${outside._id!.$oid}`,
          stack: "api",
          action: "redeploy",
          via: "apiKey",
          actorName: "Komodo: Auto Redeploy",
          startedAt: new Date(outside.start_ts).toISOString(),
          source: "komodo",
          operation: "DeployStack",
        },
      });
      const finished = await events.next();
      expect(finished).toMatchObject({
        type: "finished",
        run: { ...started.run, success: true, message: "Komodo finished DeployStack of 'api'" },
      });
    } finally {
      events.close();
    }
    const history = await app.request("/api/v0/history", { headers: { cookie } });
    expect(history.json.history.map((entry: { stack: string }) => entry.stack)).toEqual(["web"]);
  });
});
