import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { APP_ORIGIN, startConnectedBackend } from "../testing/harness.ts";
import { type Receiver, startReceiver } from "./testing/receivers.ts";

/**
 * `deploy.unstable` from end to end: a real deploy through the API, the settle window watching the
 * simulator's stack, and the alert on the wire at a webhook receiver. Nothing here calls the notify
 * service itself.
 */
const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const WATCH = { SETTLE_SECONDS: "2", SETTLE_CHECK_SECONDS: "0.2" };

let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let unstable: Receiver;
let everythingElse: Receiver;

beforeAll(async () => {
  [unstable, everythingElse] = await Promise.all([startReceiver("webhook"), startReceiver("webhook")]);
  world = await startConnectedBackend({
    komodo: {
      stacks: [{ name: "web" }, { name: "worker", faults: { afterDeploy: "crash-loop" } }],
    },
    env: WATCH,
  });
  for (const [receiver, events] of [
    [unstable, ["deploy.unstable"]],
    [everythingElse, ["deploy.failed", "deploy.succeeded"]],
  ] as const) {
    const created = await world.app.request("/api/v0/notify/channels", {
      method: "POST",
      headers: { cookie: world.cookie },
      json: { name: "hook", kind: "webhook", events, settings: { url: receiver.url, secret: SECRET } },
    });
    expect(created.status, created.text).toBe(200);
  }
});
afterAll(async () => {
  await world?.close();
  await Promise.all([unstable?.close(), everythingElse?.close()]);
});
beforeEach(() => {
  unstable.received.length = 0;
  everythingElse.received.length = 0;
});

/** Deploys through the API as a pipeline does, and waits for the settle window to end. */
async function deployAndSettle(stack: string) {
  const answer = await world.app.request("/api/v0/deploy", {
    method: "POST",
    headers: { "x-api-key": world.key },
    json: { stack, action: "redeploy" },
  });
  expect(answer.status, answer.text).toBe(200);
  const headers = { "x-api-key": world.key };
  const [entry] = (await world.app.request(`/api/v0/history?stack=${stack}`, { headers })).json.history;
  const runOf = async () =>
    (await world.app.request(`/api/v0/deploy/runs/${entry.id}`, { headers })).json.run;
  await expect
    .poll(async () => (await runOf()).settle?.state, { timeout: 15_000 })
    .toMatch(/^(stable|unstable)$/);
  return runOf();
}

/** Long enough for a second alert, had one been sent: several more checks of the window, and the queue. */
async function quietWhile() {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await world.app.backend.services.notify.idle();
}

const types = (receiver: Receiver) =>
  receiver.received.map((request) => (request.json as { type: string }).type);

describe("deploy.unstable, end to end", () => {
  it("a crash-looping stack's deploy, watched by the settle window, alerts its channel exactly once", async () => {
    const run = await deployAndSettle("worker");
    expect(run).toMatchObject({ success: true, settle: { state: "unstable" } });
    expect(run.settle.reason).toMatch(/^worker restarted \d+ times?$/);

    await expect.poll(() => unstable.received.length).toBe(1);
    await quietWhile();
    expect(types(unstable)).toEqual(["deploy.unstable"]);
    const [request] = unstable.received;
    expect(request!.problems).toEqual([]);
    // Signed as Standard Webhooks says, checked with its reference package.
    const verified = new Webhook(SECRET).verify(
      request!.body,
      request!.headers as Record<string, string>,
    ) as { type: string; data: Record<string, unknown> };
    expect(verified.type).toBe("deploy.unstable");
    expect(verified.data).toMatchObject({
      title: "Unstable after deploy: worker",
      reason: run.settle.reason,
      // A link to the run's page in the dashboard.
      url: `${APP_ORIGIN}/runs/${run.id}`,
      run: { id: run.id, stack: "worker", action: "redeploy", actor: "API Key: ci-pipeline" },
    });
    expect(verified.data.text).toContain(`The stack did not settle after the deploy: ${run.settle.reason}`);

    // The deploy itself succeeded: a channel that wants deploy.succeeded heard that, and nothing more.
    expect(types(everythingElse)).toEqual(["deploy.succeeded"]);

    // The delivery log says the same: one delivered deploy.unstable.
    const channels = (
      await world.app.request("/api/v0/notify/channels", { headers: { cookie: world.cookie } })
    ).json.channels as { id: string; events: string[] }[];
    const id = channels.find((channel) => channel.events.includes("deploy.unstable"))!.id;
    const log = await world.app.request(`/api/v0/notify/channels/${id}/deliveries`, {
      headers: { cookie: world.cookie },
    });
    expect(log.json.deliveries).toEqual([
      expect.objectContaining({ event: "deploy.unstable", stack: "worker", status: "delivered" }),
    ]);
  });

  it("a stack that stays up sends none", async () => {
    const run = await deployAndSettle("web");
    expect(run.settle).toMatchObject({ state: "stable", reason: null });
    await expect.poll(() => everythingElse.received.length).toBe(1);
    await quietWhile();
    expect(unstable.received).toEqual([]);
    expect(types(everythingElse)).toEqual(["deploy.succeeded"]);
  });
});
