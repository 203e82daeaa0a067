import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FinishedRun } from "../deploy/run.ts";
import { startConnectedBackend, startTestBackend, type TestBackend } from "../testing/harness.ts";
import { type Receiver, startReceiver } from "./testing/receivers.ts";

const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const UPDATE_CHECK_MS = 150;
/** How long an alert's request may take: a deploy that waited for one would take at least this more. */
const ALERT_TIMEOUT_MS = 5_000;

let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let app: TestBackend;
let cookie: string;
let narrow: Receiver;
let wide: Receiver;

beforeAll(async () => {
  [narrow, wide] = await Promise.all([startReceiver("webhook"), startReceiver("webhook")]);
  world = await startConnectedBackend({
    komodo: {
      stacks: [
        { name: "web-1" },
        { name: "web-2", faults: { failWith: "image not found" } },
        { name: "api", services: [{ service: "api", image: "acme/api:1" }] },
        // Already showing an update when Stackgate first looks: that sets the baseline, no alert.
        { name: "db", services: [{ service: "postgres", image: "postgres:16", updateAvailable: true }] },
      ],
    },
    config: {
      updateCheckIntervalMs: UPDATE_CHECK_MS,
      alertRetryDelaysMs: [100, 100],
      alertTimeoutMs: ALERT_TIMEOUT_MS,
    },
  });
  ({ app, cookie } = world);
});
afterAll(async () => {
  await world?.close();
  await Promise.all([narrow?.close(), wide?.close()]);
});
beforeEach(() => {
  narrow.received.length = 0;
  wide.received.length = 0;
});

const createWebhook = async (receiver: Receiver, choices: Record<string, unknown>) => {
  const created = await app.request("/api/v0/notify/channels", {
    method: "POST",
    headers: { cookie },
    json: { name: "hook", kind: "webhook", ...choices, settings: { url: receiver.url, secret: SECRET } },
  });
  expect(created.status, created.text).toBe(200);
  return created.json.channel.id as string;
};
const remove = (id: string) =>
  app.request(`/api/v0/notify/channels/${id}`, { method: "DELETE", headers: { cookie } });
const deploy = (stack: string) =>
  app.request("/api/v0/deploy", { method: "POST", headers: { cookie }, json: { stack, action: "pull" } });
/** The stack's last run, as `GET /api/v0/deploy/runs/{id}` answers it (what the deploy side holds). */
const lastRunOf = async (stack: string): Promise<FinishedRun> => {
  const [entry] = (await app.request(`/api/v0/history?stack=${stack}`, { headers: { cookie } })).json.history;
  const { run } = (await app.request(`/api/v0/deploy/runs/${entry.id}`, { headers: { cookie } })).json;
  return { ...run, startedAt: new Date(run.startedAt), finishedAt: new Date(run.finishedAt) };
};
const bodies = (receiver: Receiver) =>
  // biome-ignore lint/suspicious/noExplicitAny: the webhook's data, read as the test checks it
  receiver.received.map((request) => request.json as { type: string; data: Record<string, any> });
const ALL_EVENTS = [
  "deploy.failed",
  "deploy.succeeded",
  "deploy.unstable",
  "vulnerability.new",
  "update.available",
];

describe("what a channel chooses", () => {
  it("a channel filtered to one stack pattern and one event gets only those", async () => {
    const narrowId = await createWebhook(narrow, { events: ["deploy.succeeded"], stacks: ["web-*"] });
    const wideId = await createWebhook(wide, { events: ALL_EVENTS });
    try {
      expect((await deploy("web-1")).status).toBe(200);
      expect((await deploy("web-2")).status).toBe(502);
      expect((await deploy("api")).status).toBe(200);
      await app.backend.services.notify.deployUnstable(await lastRunOf("web-1"), "restarting");
      expect((await deploy("web-1")).status).toBe(200);
      await app.backend.services.notify.idle();
      await expect.poll(() => wide.received.length).toBe(5);
      expect(
        bodies(wide)
          .map(({ type, data }) => `${type} ${data.run.stack}`)
          .sort(),
      ).toEqual([
        "deploy.failed web-2",
        "deploy.succeeded api",
        "deploy.succeeded web-1",
        "deploy.succeeded web-1",
        "deploy.unstable web-1",
      ]);
      // A first attempt that failed (a busy machine) is tried again 100 ms later: the list may still grow.
      await expect
        .poll(() => bodies(narrow).map(({ type, data }) => `${type} ${data.run.stack}`))
        .toEqual(["deploy.succeeded web-1", "deploy.succeeded web-1"]);
    } finally {
      await remove(narrowId);
      await remove(wideId);
    }
  });

  it("idle() waits for an alert that is still reading its channels", async () => {
    const id = await createWebhook(narrow, { events: ["deploy.unstable"] });
    try {
      expect((await deploy("web-1")).status).toBe(200);
      const sending = app.backend.services.notify.deployUnstable(await lastRunOf("web-1"), "restarting");
      await app.backend.services.notify.idle();
      expect(bodies(narrow).map(({ type }) => type)).toEqual(["deploy.unstable"]);
      await sending;
    } finally {
      await remove(id);
    }
  });

  it("a channel turned off gets nothing", async () => {
    const id = await createWebhook(narrow, { events: ALL_EVENTS, enabled: false });
    try {
      expect((await deploy("web-2")).status).toBe(502);
      await app.backend.services.notify.idle();
      expect(narrow.received).toEqual([]);
    } finally {
      await remove(id);
    }
  });
});

describe("deploy.unstable", () => {
  it("alerts once per run and channel with the reason, however often it is reported", async () => {
    const id = await createWebhook(narrow, { events: ["deploy.unstable"] });
    try {
      expect((await deploy("api")).status).toBe(200);
      const run = await lastRunOf("api");
      const notify = app.backend.services.notify;
      await Promise.all([
        notify.deployUnstable(run, "api restarted 3 times within 60 s"),
        notify.deployUnstable(run, "api restarted 3 times within 60 s"),
      ]);
      await notify.deployUnstable(run, "api restarted 3 times within 60 s");
      await notify.idle();
      expect(bodies(narrow)).toHaveLength(1);
      const [{ type, data }] = bodies(narrow);
      expect(type).toBe("deploy.unstable");
      expect(data.title).toBe("Unstable after deploy: api");
      expect(data.reason).toBe("api restarted 3 times within 60 s");
      expect(data.text).toContain(
        "The stack did not settle after the deploy: api restarted 3 times within 60 s",
      );
      expect(data.run).toMatchObject({ id: run.id, stack: "api", action: "pull", actor: "Ada Admin" });
    } finally {
      await remove(id);
    }
  });
});

describe("a slow channel", () => {
  it("never delays a deploy: its answer comes while every alert still waits", async () => {
    const timed = async (stack: string) => {
      const started = performance.now();
      const answer = await deploy(stack);
      return { status: answer.status, ms: performance.now() - started };
    };
    // A few plain deploys first, for the time a deploy takes here without alerts.
    const plain = [];
    for (let index = 0; index < 3; index++) plain.push((await timed("web-1")).ms);
    narrow.slow(10_000);
    const ids = [];
    for (let index = 0; index < 4; index++) ids.push(await createWebhook(narrow, { events: ALL_EVENTS }));
    try {
      const succeeded = await timed("web-1");
      const failed = await timed("web-2");
      expect([succeeded.status, failed.status]).toEqual([200, 502]);
      // Each of the four channels' alerts is still waiting for its answer (10 s).
      await expect.poll(() => narrow.received.length).toBe(8);
      // Half the alert's timeout of slack: a deploy that waited for an alert would take all of it more,
      // and a busy machine has made a deploy here take a second more than the plain ones.
      expect(Math.max(succeeded.ms, failed.ms)).toBeLessThan(Math.max(...plain) + ALERT_TIMEOUT_MS / 2);
    } finally {
      narrow.slow(0);
      for (const id of ids) await remove(id);
    }
  });
});

describe("update.available", () => {
  it("alerts a service that newly shows an update once per image, not what showed at the first look", async () => {
    const id = await createWebhook(narrow, { events: ["update.available"] });
    const updates = () =>
      bodies(narrow).map(
        ({ data }) =>
          `${data.stack}: ${data.services.map((s: { service: string; image: string }) => `${s.service} ${s.image}`).join(", ")}`,
      );
    try {
      await app.backend.services.notify.checkUpdates();
      world.komodo.setService("api", "api", { updateAvailable: true });
      await expect.poll(() => updates()).toEqual(["api: api acme/api:1"]);
      // Several more looks: nothing new.
      await new Promise((resolve) => setTimeout(resolve, UPDATE_CHECK_MS * 4));
      expect(updates()).toHaveLength(1);
      const [first] = bodies(narrow);
      expect(first!.data.title).toBe("Update available: api");
      expect(first!.data.url).toBe("http://localhost:8080/stacks/api");

      // Another image for the service (a tag bump) is another update.
      world.komodo.setService("api", "api", { image: "acme/api:2" });
      await expect.poll(() => updates()).toEqual(["api: api acme/api:1", "api: api acme/api:2"]);
      // Deployed, then a newer image again.
      world.komodo.setService("api", "api", { updateAvailable: false });
      await new Promise((resolve) => setTimeout(resolve, UPDATE_CHECK_MS * 3));
      world.komodo.setService("api", "api", { updateAvailable: true });
      await expect.poll(() => updates()).toHaveLength(3);
      // While Komodo is down nothing changes; once it is back, nothing is sent again.
      await world.komodo.faults.set({ down: true });
      await new Promise((resolve) => setTimeout(resolve, UPDATE_CHECK_MS * 3));
      await world.komodo.faults.set({ down: false });
      await new Promise((resolve) => setTimeout(resolve, UPDATE_CHECK_MS * 4));
      expect(updates()).toHaveLength(3);
      expect(updates().some((line) => line.startsWith("db"))).toBe(false);
    } finally {
      await remove(id);
    }
  });

  it("sends nothing again after a restart for what it already alerted", async () => {
    world.komodo.setService("api", "api", { updateAvailable: true });
    await createWebhook(narrow, { events: ["update.available"] });
    await app.backend.services.notify.checkUpdates();
    narrow.received.length = 0;
    await app.close({ keepData: true });
    const restarted = await startTestBackend({
      dataDir: app.dataDir,
      config: { updateCheckIntervalMs: UPDATE_CHECK_MS },
    });
    try {
      await restarted.backend.services.notify.checkUpdates();
      await new Promise((resolve) => setTimeout(resolve, UPDATE_CHECK_MS * 4));
      expect(narrow.received).toEqual([]);
      world.komodo.setService("web-1", "web-1", { updateAvailable: true });
      await expect.poll(() => bodies(narrow).map(({ data }) => data.stack)).toEqual(["web-1"]);
    } finally {
      await restarted.close();
    }
  });
});
