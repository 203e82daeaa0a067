import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startConnectedBackend, type TestBackend } from "../testing/harness.ts";
import { type Receiver, startReceiver } from "./testing/receivers.ts";

const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
/** Fast retries, so that a test sees all three tries: the real ones wait 30 s, then 2 min. */
const DELAYS_MS = [150, 300];

let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let app: TestBackend;
let cookie: string;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver("webhook");
  world = await startConnectedBackend({
    komodo: {
      stacks: [{ name: "web" }, { name: "broken", faults: { failWith: "no space left on device" } }],
    },
    env: { NTFY_TIMEOUT_SECONDS: "1" },
    config: { alertRetryDelaysMs: DELAYS_MS, alertRetryWindowMs: 10_000 },
  });
  ({ app, cookie } = world);
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

const createWebhook = async (
  settings: Record<string, unknown> = {},
  choices: Record<string, unknown> = {},
) => {
  const created = await app.request("/api/v0/notify/channels", {
    method: "POST",
    headers: { cookie },
    json: {
      name: "automation",
      kind: "webhook",
      events: ["deploy.failed", "deploy.succeeded"],
      ...choices,
      settings: { url: `${receiver.url}/hooks/stackgate`, secret: SECRET, ...settings },
    },
  });
  expect(created.status, created.text).toBe(200);
  return created.json.channel as { id: string; settings: Record<string, unknown> };
};
const deploy = (stack: string) =>
  app.request("/api/v0/deploy", { method: "POST", headers: { cookie }, json: { stack, action: "pull" } });
const deliveriesOf = async (id: string) =>
  (await app.request(`/api/v0/notify/channels/${id}/deliveries`, { headers: { cookie } })).json
    .deliveries as {
    event: string;
    status: string;
    error: string | null;
    attempts: { at: string; delivered: boolean; status: number | null; error: string | null }[];
  }[];
const channelState = async (id: string) =>
  (await app.request(`/api/v0/notify/channels/${id}`, { headers: { cookie } })).json.channel;
const remove = (id: string) =>
  app.request(`/api/v0/notify/channels/${id}`, { method: "DELETE", headers: { cookie } });

describe("a signed webhook", () => {
  it("carries a body the reference standardwebhooks package verifies, with the custom headers", async () => {
    const channel = await createWebhook({
      headers: { "X-Env": "production", Authorization: "Bearer hookToken123" },
    });
    try {
      expect(channel.settings).toEqual({
        host: new URL(receiver.url).host,
        urlSet: true,
        secretSet: true,
        headerNames: ["X-Env", "Authorization"],
      });
      expect((await deploy("broken")).status).toBe(502);
      await expect.poll(() => receiver.received.length).toBe(1);
      const [request] = receiver.received;
      expect(request!.url).toBe("/hooks/stackgate");
      expect(request!.headers["x-env"]).toBe("production");
      expect(request!.headers.authorization).toBe("Bearer hookToken123");
      const verified = new Webhook(SECRET).verify(
        request!.body,
        request!.headers as Record<string, string>,
      ) as {
        type: string;
        data: {
          run: { stack: string; action: string; actor: string; success: boolean; message: string };
          url: string;
        };
      };
      expect(verified.type).toBe("deploy.failed");
      expect(verified.data.run).toMatchObject({
        stack: "broken",
        action: "pull",
        actor: "Ada Admin",
        success: false,
      });
      expect(verified.data.run.message).toContain("no space left on device");
      // Signed with another secret, the same request fails the reference check.
      expect(() =>
        new Webhook(`whsec_${randomBytes(32).toString("base64")}`).verify(
          request!.body,
          request!.headers as Record<string, string>,
        ),
      ).toThrow();
    } finally {
      await remove(channel.id);
    }
  });

  it("keeps its webhook-id on every retry, signing each try anew", async () => {
    const channel = await createWebhook();
    try {
      receiver.script({ status: 502 }, { status: 500 });
      expect((await deploy("web")).status).toBe(200);
      await expect.poll(() => receiver.received.length, { timeout: 5000 }).toBe(3);
      const ids = receiver.received.map((request) => request.headers["webhook-id"]);
      expect(new Set(ids).size).toBe(1);
      expect(ids[0]).toMatch(/^msg_/);
      for (const request of receiver.received)
        expect(() =>
          new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>),
        ).not.toThrow();
      await expect.poll(async () => (await deliveriesOf(channel.id))[0]?.status).toBe("delivered");
    } finally {
      await remove(channel.id);
    }
  });
});

describe("retries", () => {
  it("wait at least what Retry-After asks, on 429 and 503", async () => {
    const channel = await createWebhook();
    try {
      receiver.script(
        { status: 429, headers: { "retry-after": "1" } },
        { status: 503, headers: { "retry-after": "1" } },
      );
      expect((await deploy("web")).status).toBe(200);
      await expect.poll(() => receiver.received.length, { timeout: 6000 }).toBe(3);
      const [first, second, third] = receiver.received.map((request) => request.at);
      // Without Retry-After the retries would come 150 and 300 ms apart.
      expect(second! - first!).toBeGreaterThanOrEqual(950);
      expect(third! - second!).toBeGreaterThanOrEqual(950);
      await expect.poll(async () => (await deliveriesOf(channel.id))[0]?.status).toBe("delivered");
      const [delivery] = await deliveriesOf(channel.id);
      expect(delivery!.attempts.map((attempt) => attempt.status)).toEqual([429, 503, 204]);
      expect(delivery!.attempts.map((attempt) => attempt.delivered)).toEqual([false, false, true]);
    } finally {
      await remove(channel.id);
    }
  });

  it("stop after the third try, and give up at once when Retry-After is past the window", async () => {
    const channel = await createWebhook();
    try {
      receiver.script({ status: 500, body: '{"error":"down"}' }, { status: 500 }, { status: 500 });
      expect((await deploy("web")).status).toBe(200);
      await expect
        .poll(async () => (await deliveriesOf(channel.id))[0]?.status, { timeout: 5000 })
        .toBe("failed");
      expect(receiver.received).toHaveLength(3);
      const [failed] = await deliveriesOf(channel.id);
      expect(failed!.attempts).toHaveLength(3);
      expect(failed!.attempts[0]!.error).toBe("The webhook answered 500 down");

      receiver.received.length = 0;
      receiver.script({ status: 503, headers: { "retry-after": "3600" } });
      expect((await deploy("broken")).status).toBe(502);
      // The first delivery failed too: wait for the failed deploy's own, which comes after the answer.
      const failedDeploy = async () =>
        (await deliveriesOf(channel.id)).find((delivery) => delivery.event === "deploy.failed");
      await expect.poll(async () => (await failedDeploy())?.status).toBe("failed");
      expect(receiver.received).toHaveLength(1);
      expect((await failedDeploy())!.error).toMatch(
        /not tried again: the next try would come 3600 s later, after the 10-second window/,
      );
    } finally {
      await remove(channel.id);
    }
  });

  it("never follow a 4xx", async () => {
    const channel = await createWebhook();
    try {
      receiver.script({ status: 404, body: '{"message":"no such hook"}' });
      expect((await deploy("broken")).status).toBe(502);
      await expect.poll(async () => (await deliveriesOf(channel.id))[0]?.status).toBe("failed");
      await new Promise((resolve) => setTimeout(resolve, DELAYS_MS[0]! * 3));
      expect(receiver.received).toHaveLength(1);
      expect((await deliveriesOf(channel.id))[0]).toMatchObject({
        error: "The webhook answered 404 no such hook",
      });
    } finally {
      await remove(channel.id);
    }
  });

  it("follow a network error, and a service that does not answer in time", async () => {
    // A port nobody listens on: every try is refused.
    const port = await freePort();
    const refused = await createWebhook({ url: `http://127.0.0.1:${port}/hook` });
    const slow = await createWebhook();
    try {
      receiver.slow(3000);
      expect((await deploy("web")).status).toBe(200);
      await expect
        .poll(async () => (await deliveriesOf(refused.id))[0]?.status, { timeout: 5000 })
        .toBe("failed");
      const [delivery] = await deliveriesOf(refused.id);
      expect(delivery!.attempts.map((attempt) => attempt.error)).toEqual(
        Array(3).fill(`The webhook at 127.0.0.1:${port} is unreachable: connection refused`),
      );
      await expect
        .poll(async () => (await deliveriesOf(slow.id))[0]?.attempts.length, { timeout: 8000 })
        .toBe(3);
      expect((await deliveriesOf(slow.id))[0]!.attempts[0]!.error).toBe(
        "The webhook did not answer within 1 s",
      );
    } finally {
      receiver.slow(0);
      await remove(refused.id);
      await remove(slow.id);
    }
  });
});

describe("the delivery log", () => {
  it("keeps the last 200 deliveries, and marks the channel failing after 10 failures in a row", async () => {
    const channel = await createWebhook();
    try {
      const test = () =>
        app.request(`/api/v0/notify/channels/${channel.id}/test`, { method: "POST", headers: { cookie } });
      for (let index = 0; index < 9; index++) receiver.script({ status: 400 });
      for (let index = 0; index < 9; index++) await test();
      expect(await channelState(channel.id)).toMatchObject({
        failing: false,
        lastDelivery: { event: "test", status: "failed", error: "The webhook answered 400 Bad Request" },
      });
      receiver.script({ status: 410 });
      await test();
      expect((await channelState(channel.id)).failing).toBe(true);
      const listed = (await app.request("/api/v0/notify/channels", { headers: { cookie } })).json.channels;
      expect(listed.find((one: { id: string }) => one.id === channel.id).failing).toBe(true);
      await test();
      expect(await channelState(channel.id)).toMatchObject({
        failing: false,
        lastDelivery: { status: "delivered", error: null },
      });

      for (let index = 0; index < 189; index++) await test();
      const log = await deliveriesOf(channel.id);
      expect(log).toHaveLength(200);
      expect(log.at(-1)!.status).toBe("failed");
      await test();
      const pruned = await deliveriesOf(channel.id);
      expect(pruned).toHaveLength(200);
      expect(pruned.every((delivery) => delivery.status === "delivered")).toBe(false);
      expect(pruned.filter((delivery) => delivery.status === "failed")).toHaveLength(9);
    } finally {
      await remove(channel.id);
    }
  }, 60_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
