import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEventStream } from "../testing/event-stream.ts";
import { startConnectedBackend, startTestBackend } from "../testing/harness.ts";

// Issue 31: whether a deploy stayed up, watched for a while after it succeeded.
const WATCH = { SETTLE_SECONDS: "3", SETTLE_CHECK_SECONDS: "0.25" };
let world: Awaited<ReturnType<typeof startConnectedBackend>>;
beforeAll(async () => {
  world = await startConnectedBackend({
    komodo: {
      stacks: [
        { name: "web" },
        { name: "worker", faults: { afterDeploy: "crash-loop" } },
        { name: "jobs", faults: { afterDeploy: "exits" } },
        { name: "api", faults: { afterDeploy: "unhealthy" } },
      ],
    },
    env: WATCH,
  });
});
afterAll(() => world.close());

const deploy = async (stack: string, action: string, extra: object = {}) => {
  const answer = await world.app.request("/api/v0/deploy", {
    method: "POST",
    headers: { "x-api-key": world.key, prefer: "respond-async" },
    json: { stack, action, ...extra },
  });
  expect(answer.status, answer.text).toBe(202);
  return answer.json.run.id as string;
};
const runOf = async (id: string) =>
  (await world.app.request(`/api/v0/deploy/runs/${id}`, { headers: { "x-api-key": world.key } })).json.run;
const settled = async (id: string) => {
  await expect
    .poll(async () => (await runOf(id)).settle?.state, { timeout: 10_000 })
    .not.toMatch(/^(watching)?$/);
  return runOf(id);
};

describe("the settle window", () => {
  it("ends stable when the services stay up, without delaying the deploy's answer", async () => {
    const started = performance.now();
    const answer = await world.app.request("/api/v0/deploy", {
      method: "POST",
      headers: { "x-api-key": world.key },
      json: { stack: "web", action: "redeploy" },
    });
    expect(answer.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2500);
    const [entry] = (
      await world.app.request("/api/v0/history?stack=web", { headers: { "x-api-key": world.key } })
    ).json.history;
    expect(entry.settle).toMatchObject({ state: "watching", reason: null });
    expect(Date.parse(entry.settle.until) - Date.parse(entry.createdAt)).toBe(3000);
    const done = await settled(entry.id);
    expect(done.settle).toMatchObject({ state: "stable", reason: null });
  });

  it("ends unstable within the window for a service that restarts in a loop, with how often", async () => {
    const id = await deploy("worker", "pull-redeploy");
    const done = await settled(id);
    expect(done.success).toBe(true);
    expect(done.settle).toMatchObject({
      state: "unstable",
      reason: expect.stringMatching(/^worker restarted \d+ times?$/),
    });
    expect(Date.parse(done.settle.until)).toBeGreaterThan(Date.now() - 10_000);
    // Counted in the metrics too.
    const reader = await world.app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie: world.cookie },
      json: { name: "prometheus", scope: { metrics: true, read: [], actions: [] } },
    });
    const metrics = await world.app.request("/metrics", { headers: { "x-api-key": reader.json.key } });
    expect(metrics.text).toContain(
      'stackgate_deploys_settled_total{action="pull-redeploy",state="unstable"} 1',
    );
  });

  it("names a service that exits with an error, and one that fails its health check", async () => {
    const [jobs, api] = await Promise.all([deploy("jobs", "redeploy"), deploy("api", "redeploy")]);
    expect((await settled(jobs)).settle.reason).toBe("jobs exited (1)");
    expect((await settled(api)).settle.reason).toBe("api unhealthy");
  });

  it("skips a pull, and a deploy that asks for no window", async () => {
    expect((await settled(await deploy("web", "pull"))).settle).toEqual({
      state: "skipped",
      reason: "a pull restarts nothing",
      until: null,
    });
    expect((await settled(await deploy("worker", "redeploy", { settleSeconds: 0 }))).settle).toMatchObject({
      state: "skipped",
    });
  });

  it("announces how it ended on the event stream (settled), after finished", async () => {
    const stream = await openEventStream(`${world.app.url}/api/v0/deploy/events`, { "x-api-key": world.key });
    try {
      await stream.next();
      const id = await deploy("worker", "redeploy", { settleSeconds: 3 });
      const seen = [];
      do seen.push(await stream.next(10_000));
      while (seen.at(-1).type !== "settled");
      expect(seen.map((event) => event.type)).toEqual([
        "started",
        "started",
        "log",
        "started",
        "log",
        "finished",
        "settled",
      ]);
      expect(seen.at(-1).run).toMatchObject({ id, success: true, settle: { state: "unstable" } });
    } finally {
      stream.close();
    }
  });

  it("refuses a window longer than 10 minutes, naming the field", async () => {
    const refused = await world.app.request("/api/v0/deploy", {
      method: "POST",
      headers: { "x-api-key": world.key },
      json: { stack: "web", action: "redeploy", settleSeconds: 601 },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe("settleSeconds: settleSeconds must be at most 600");
  });

  it("counts its reads: one a check per watched stack, however many windows are open on it", async () => {
    const ids = await Promise.all([
      deploy("web", "redeploy", { settleSeconds: 3 }),
      deploy("web", "redeploy", { settleSeconds: 3 }),
    ]);
    // Both finished (their own reads of what ran before and after done), both windows open.
    for (const id of ids) await expect.poll(async () => (await runOf(id)).status).toBe("finished");
    const reads = () => world.komodo.calls.filter((call) => call.type === "ListStackServices").length;
    const before = reads();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Four checks a second (SETTLE_CHECK_SECONDS 0.25) for the stack, not eight.
    expect(reads() - before).toBeLessThanOrEqual(5);
  });
});

describe("a restart of the backend", () => {
  it("resumes the windows still open and ends them", async () => {
    const app = await startTestBackend({ env: { ...WATCH, SETTLE_SECONDS: "4" } });
    const cookie = await app.signIn();
    const { key } = await app.createApiKey(cookie, "restart");
    await app.connectKomodo(cookie, world.komodo);
    const answer = await app.request("/api/v0/deploy", {
      method: "POST",
      headers: { "x-api-key": key },
      json: { stack: "worker", action: "redeploy" },
    });
    expect(answer.status).toBe(200);
    const [entry] = (
      await app.request("/api/v0/history?stack=worker&limit=1", { headers: { "x-api-key": key } })
    ).json.history;
    expect(entry.settle.state).toBe("watching");
    await app.close({ keepData: true });

    const again = await startTestBackend({ dataDir: app.dataDir, env: WATCH });
    try {
      await expect
        .poll(
          async () =>
            (await again.request(`/api/v0/deploy/runs/${entry.id}`, { headers: { "x-api-key": key } })).json
              .run.settle.state,
          { timeout: 10_000 },
        )
        .toBe("unstable");
      // What ran before the deploy is still known: only what runs after was read again.
      const { run } = (
        await again.request(`/api/v0/deploy/runs/${entry.id}`, { headers: { "x-api-key": key } })
      ).json;
      expect(run.changes).toEqual([
        expect.objectContaining({ service: "worker", from: expect.stringMatching(/^sha256:/) }),
      ]);
      expect(run.changes).toEqual(entry.changes);
    } finally {
      await again.close();
    }
  });
});
