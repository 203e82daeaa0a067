import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseEnvironmentOf, onPostgres } from "../testing/database.ts";
import { startConnectedBackend, startTestBackend, type TestBackend } from "../testing/harness.ts";
import { type Receiver, startReceiver } from "./testing/receivers.ts";

const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const UPDATE_CHECK_MS = 150;

// Two backends on one PostgreSQL database, as behind a gateway with BACKEND_URLS.
describe.skipIf(!onPostgres())("alerts from several backends on one PostgreSQL", () => {
  let world: Awaited<ReturnType<typeof startConnectedBackend>>;
  let other: TestBackend;
  let receiver: Receiver;
  let channelId: string;
  beforeAll(async () => {
    receiver = await startReceiver("webhook");
    world = await startConnectedBackend({
      komodo: { stacks: [{ name: "web" }, { name: "broken", faults: { failWith: "exit code 1" } }] },
      config: { updateCheckIntervalMs: UPDATE_CHECK_MS },
    });
    const { DATABASE_URL } = databaseEnvironmentOf(world.app.dataDir);
    other = await startTestBackend({
      env: { DATABASE_URL: DATABASE_URL! },
      config: { updateCheckIntervalMs: UPDATE_CHECK_MS },
    });
    const created = await world.app.request("/api/v0/notify/channels", {
      method: "POST",
      headers: { cookie: world.cookie },
      json: {
        name: "everything",
        kind: "webhook",
        events: ["deploy.failed", "deploy.succeeded", "deploy.unstable", "update.available"],
        settings: { url: receiver.url, secret: SECRET },
      },
    });
    expect(created.status).toBe(200);
    channelId = created.json.channel.id;
  });
  afterAll(async () => {
    await other?.close();
    await world?.close();
    await receiver?.close();
  });

  const types = () =>
    receiver.received.map((request) => {
      const { type, data } = request.json as { type: string; data: { run?: { id: string }; stack?: string } };
      return `${type} ${data.run?.id ?? data.stack}`;
    });

  it("sends each alert once, whichever backend ran the deploy or reported the event", async () => {
    const deploy = (app: TestBackend, stack: string) =>
      app.request("/api/v0/deploy", {
        method: "POST",
        headers: { "x-api-key": world.key },
        json: { stack, action: "pull" },
      });
    const answers = await Promise.all([
      deploy(world.app, "web"),
      deploy(other, "broken"),
      deploy(other, "web"),
      deploy(world.app, "broken"),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 502, 200, 502]);
    await expect.poll(() => receiver.received.length).toBe(4);

    // The settle window may report a run from each backend: it reaches the channel once.
    const history = (
      await world.app.request("/api/v0/history?stack=web", { headers: { "x-api-key": world.key } })
    ).json.history;
    const { run } = (
      await world.app.request(`/api/v0/deploy/runs/${history[0].id}`, { headers: { "x-api-key": world.key } })
    ).json;
    const finished = { ...run, startedAt: new Date(run.startedAt), finishedAt: new Date(run.finishedAt) };
    await Promise.all([
      world.app.backend.services.notify.deployUnstable(finished, "web restarted"),
      other.backend.services.notify.deployUnstable(finished, "web restarted"),
    ]);

    // An update both backends look at (the one that leads by its timer, both right now).
    world.komodo.setService("web", "web", { updateAvailable: true });
    await Promise.all([
      world.app.backend.services.notify.checkUpdates(),
      other.backend.services.notify.checkUpdates(),
    ]);
    await expect.poll(() => receiver.received.length).toBe(6);
    await new Promise((resolve) => setTimeout(resolve, UPDATE_CHECK_MS * 4));

    const sent = types();
    expect(sent).toHaveLength(6);
    expect(new Set(sent).size).toBe(6);
    expect(sent.filter((line) => line.startsWith("deploy.unstable"))).toEqual([`deploy.unstable ${run.id}`]);
    expect(sent.filter((line) => line.startsWith("update.available"))).toEqual(["update.available web"]);
    expect(new Set(receiver.received.map((request) => request.headers["webhook-id"])).size).toBe(6);

    // Either backend shows the same log.
    const logOf = async (app: TestBackend) =>
      (
        await app.request(`/api/v0/notify/channels/${channelId}/deliveries`, {
          headers: { cookie: await app.signIn() },
        })
      ).json.deliveries.length;
    expect(await logOf(other)).toBe(6);
    expect(await logOf(world.app)).toBe(6);
  });
});
