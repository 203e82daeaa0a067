import { type KomodoSimulator, type NtfyReceiver, startNtfyReceiver } from "@stackgate/simulators";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deployHistory, deployIdempotency, user } from "../db/schema.ts";
import { manualClock } from "../testing/clock.ts";
import { openEventStream } from "../testing/event-stream.ts";
import { startConnectedBackend, type TestBackend } from "../testing/harness.ts";

let komodo: KomodoSimulator;
let app: TestBackend;
let cookie: string;
let key: string;
let ntfy: NtfyReceiver;
let close: () => Promise<void>;
const clock = manualClock(Date.now());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  ({ komodo, app, cookie, key, close } = await startConnectedBackend({
    komodo: {
      stacks: [
        { name: "web", state: "running" },
        { name: "api", state: "running" },
        { name: "held", state: "running", faults: { holdUpdates: true } },
        {
          name: "broken",
          faults: { failWith: "Error response from daemon: manifest for acme/broken:2 not found" },
        },
      ],
    },
    clock,
    env: { DEPLOY_TIMEOUT_SECONDS: "20" },
    keyName: "release-pipeline",
  }));
  ntfy = await startNtfyReceiver({});
  const saved = await app.request("/api/v0/deploy/credentials/notify", {
    method: "POST",
    headers: { cookie },
    json: { url: ntfy.url, topic: "deploys", enabled: true },
  });
  expect(saved.status).toBe(200);
});
afterAll(async () => {
  await close();
  await ntfy.close();
});
beforeEach(async () => {
  // Every run of the previous test has ended before the next one counts Komodo's calls.
  await expect
    .poll(() => {
      komodo.releaseUpdates("held");
      return runningRows();
    })
    .toBe(0);
  komodo.clearCalls();
  ntfy.published.length = 0;
});

const deploy = (stack: string, action: string, headers: Record<string, string> = {}) =>
  app.request("/api/v0/deploy", {
    method: "POST",
    headers: { "x-api-key": key, ...headers },
    json: { stack, action },
  });
const getRun = (id: string, headers: Record<string, string> = { "x-api-key": key }) =>
  app.request(`/api/v0/deploy/runs/${id}`, { headers });
/** Resolves once the run has ended (its history row is written, so Komodo has been called for the last time). */
const untilFinished = (id: string) =>
  expect.poll(async () => (await getRun(id)).json.run.status, { timeout: 5000 }).toBe("finished");
const executes = () => komodo.calls.filter((call) => call.api === "execute").map((call) => call.type);
const runningRows = () => app.backend.db.$count(deployHistory, eq(deployHistory.running, true));
const historyRows = (id: string) =>
  app.backend.db.select().from(deployHistory).where(eq(deployHistory.id, id));
const ASYNC = { prefer: "respond-async" };

describe("Prefer: respond-async", () => {
  it("answers 202 at once with the run and its Location, while Komodo is still on it", async () => {
    const response = await deploy("held", "redeploy", ASYNC);
    expect(response.status).toBe(202);
    expect(response.headers.get("preference-applied")).toBe("respond-async");
    const { run } = response.json;
    expect(run).toEqual({
      id: expect.stringMatching(UUID),
      stack: "held",
      action: "redeploy",
      via: "apiKey",
      actorName: "API Key: release-pipeline",
      startedAt: expect.any(String),
    });
    expect(response.headers.get("location")).toBe(`/api/v0/deploy/runs/${run.id}`);

    await komodo.whenHeld("held");
    const running = await getRun(run.id);
    expect(running.status).toBe(200);
    expect(running.json.run).toEqual({ ...run, status: "running", step: "take-down" });

    komodo.releaseUpdates("held");
    await expect.poll(async () => (await getRun(run.id)).json.run.step, { timeout: 5000 }).toBe("deploy");
    await komodo.whenHeld("held");
    komodo.releaseUpdates("held");
    await expect.poll(async () => (await getRun(run.id)).json.run.status, { timeout: 5000 }).toBe("finished");
    const finished = (await getRun(run.id)).json.run;
    expect(finished).toEqual({
      ...run,
      status: "finished",
      success: true,
      message: "Acción 'redeploy' completada para 'held'",
      finishedAt: expect.any(String),
      // The same image before and after, no repository, and its services then watched for SETTLE_SECONDS.
      changes: [
        {
          service: "held",
          image: "held:latest",
          from: expect.stringMatching(/^sha256:/),
          to: expect.any(String),
        },
      ],
      commit: null,
      settle: { state: "watching", reason: null, until: expect.any(String) },
    });
    expect(finished.changes[0].to).toBe(finished.changes[0].from);
    expect(executes()).toEqual(["DestroyStack", "DeployStack"]);
    const history = await app.request("/api/v0/history", { headers: { cookie } });
    expect(history.json.history.filter((entry: { id: string }) => entry.id === run.id)).toHaveLength(1);
  });

  it("finds respond-async among other preferences, in any case", async () => {
    const response = await deploy("web", "pull", { prefer: "wait=5, Respond-Async ; x=1, handling=lenient" });
    expect(response.status).toBe(202);
    expect(response.headers.get("preference-applied")).toBe("respond-async");
  });

  it("leaves the synchronous answer byte for byte as it was without the header", async () => {
    for (const headers of [{}, { prefer: "handling=strict" }] as Record<string, string>[]) {
      const response = await deploy("web", "pull", headers);
      expect(response.status).toBe(200);
      expect(response.text).toBe(
        `{"success":true,"message":"Acción 'pull' completada para 'web'","stack":"web","action":"pull"}`,
      );
      expect(response.headers.get("location")).toBeNull();
      expect(response.headers.get("preference-applied")).toBeNull();
    }
  });

  it("a failed asynchronous run ends in the history, on the event stream, in the alert and in the metrics", async () => {
    const stream = await openEventStream(`${app.url}/api/v0/deploy/events`, { "x-api-key": key });
    expect((await stream.next()).type).toBe("subscribed");
    const response = await deploy("broken", "pull", ASYNC);
    expect(response.status).toBe(202);
    const { run } = response.json;

    expect(await stream.next()).toEqual({ type: "started", run });
    expect(await stream.next()).toEqual({ type: "started", run: { ...run, step: "pull" } });
    expect((await stream.next()).type).toBe("log");
    const finished = await stream.next();
    stream.close();
    expect(finished).toEqual({
      type: "finished",
      run: {
        ...run,
        success: false,
        message: expect.stringContaining("manifest for acme/broken:2"),
        finishedAt: expect.any(String),
        changes: [expect.objectContaining({ service: "broken" })],
        commit: null,
        settle: { state: "skipped", reason: "a pull restarts nothing", until: null },
      },
    });

    const answer = (await getRun(run.id)).json.run;
    expect(answer).toMatchObject({ status: "finished", success: false, message: finished.run.message });
    expect(await historyRows(run.id)).toMatchObject([
      { running: false, success: false, message: finished.run.message },
    ]);
    await expect.poll(() => ntfy.published.length).toBe(1);
    expect(JSON.stringify(ntfy.published[0])).toContain("broken");

    const metricsKey = await app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie },
      json: { name: "prometheus", scope: { metrics: true, read: [], actions: [] } },
    });
    const metrics = await fetch(`${app.url}/metrics`, { headers: { "x-api-key": metricsKey.json.key } });
    expect(await metrics.text()).toMatch(
      /stackgate_deploys_total\{action="pull",outcome="failure",caller="apiKey"\} [1-9]/,
    );
  });

  it("a run refused before it starts (no history) is answered as synchronously, not 202", async () => {
    const response = await deploy("web", "restart", ASYNC);
    expect(response.status).toBe(400);
    expect(response.json.message).toMatch(/action/);
  });
});

describe("GET /api/v0/deploy/runs/{id}", () => {
  it("answers 404 for an unknown id and for a run outside a scoped key's stacks", async () => {
    expect((await getRun("no-such-run")).status).toBe(404);
    const { run } = (await deploy("api", "pull", ASYNC)).json;
    const scoped = await app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie },
      json: { name: "web-only", scope: { stacks: ["web"], read: ["history"] } },
    });
    const hidden = await getRun(run.id, { "x-api-key": scoped.json.key });
    expect(hidden.status).toBe(404);
    expect(hidden.text).not.toContain("api");
    expect((await getRun(run.id, { cookie })).status).toBe(200);
  });

  it("needs the history read in a key's scope", async () => {
    const { run } = (await deploy("web", "pull", ASYNC)).json;
    const deployOnly = await app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie },
      json: { name: "deploy-only", scope: { read: [] } },
    });
    const refused = await getRun(run.id, { "x-api-key": deployOnly.json.key });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/read history/);
  });
});

describe("Idempotency-Key", () => {
  it("a repeat with the same key and body answers the same run and deploys once (async)", async () => {
    const headers = { ...ASYNC, "idempotency-key": "release-4711-api" };
    const first = await deploy("held", "pull", headers);
    const again = await deploy("held", "pull", headers);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.json.run).toEqual(first.json.run);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    // Released once Komodo holds it: a release before the run's call arrives would release nothing.
    await komodo.whenHeld("held");
    komodo.releaseUpdates("held");
    await untilFinished(first.json.run.id);
    expect(executes()).toEqual(["PullStack"]);
    expect(await historyRows(first.json.run.id)).toHaveLength(1);
  });

  it("two requests at once with the same key deploy once", async () => {
    const headers = { ...ASYNC, "idempotency-key": "concurrent-1" };
    const answers = await Promise.all([1, 2, 3].map(() => deploy("web", "redeploy", headers)));
    expect(new Set(answers.map((answer) => answer.json.run.id)).size).toBe(1);
    await untilFinished(answers[0]!.json.run.id);
    expect(executes()).toEqual(["DestroyStack", "DeployStack"]);
  });

  it("a synchronous repeat waits for the same run's end and answers its outcome", async () => {
    const headers = { "idempotency-key": "sync-retry-1" };
    const first = deploy("held", "pull", headers);
    await komodo.whenHeld("held");
    const retry = deploy("held", "pull", headers);
    await new Promise((resolve) => setTimeout(resolve, 200));
    komodo.releaseUpdates("held");
    const [a, b] = await Promise.all([first, retry]);
    expect(a.status).toBe(200);
    expect(b.text).toBe(a.text);
    // After the end too, and an async repeat gets the finished run.
    expect((await deploy("held", "pull", headers)).text).toBe(a.text);
    const asyncRepeat = await deploy("held", "pull", { ...headers, ...ASYNC });
    expect(asyncRepeat.status).toBe(202);
    expect((await getRun(asyncRepeat.json.run.id)).json.run.status).toBe("finished");
    expect(executes()).toEqual(["PullStack"]);
  });

  it("a synchronous repeat of a failed run answers the same failure", async () => {
    const headers = { "idempotency-key": "failing-1" };
    const first = await deploy("broken", "pull", headers);
    const again = await deploy("broken", "pull", headers);
    expect(first.status).toBe(502);
    expect(again.status).toBe(502);
    expect(again.text).toBe(first.text);
    expect(executes()).toEqual(["PullStack"]);
  });

  it("the same key with another body is a 422 naming the header, and deploys nothing", async () => {
    const headers = { ...ASYNC, "idempotency-key": "reused-key" };
    const first = await deploy("web", "pull", headers);
    expect(first.status).toBe(202);
    await untilFinished(first.json.run.id);
    komodo.clearCalls();
    for (const [stack, action] of [
      ["web", "redeploy"],
      ["api", "pull"],
    ] as const) {
      const refused = await deploy(stack, action, headers);
      expect(refused.status).toBe(422);
      expect(refused.json.message).toMatch(/^Idempotency-Key: /);
    }
    expect(executes()).toEqual([]);
  });

  it.each([
    ["with a space", "a b"],
    ["too long", "k".repeat(256)],
    ["empty", ""],
    ["not ASCII", "clé"],
  ])("a malformed key (%s) is a 400 naming the header, and records nothing", async (_, value) => {
    const before = (await app.request("/api/v0/history", { headers: { cookie } })).json.history.length;
    const refused = await deploy("web", "pull", { ...ASYNC, "idempotency-key": value });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/Idempotency-Key/);
    expect((await app.request("/api/v0/history", { headers: { cookie } })).json.history.length).toBe(before);
    expect(executes()).toEqual([]);
  });

  it("keys are per owner, and a key older than 24 hours starts a new run (old keys are purged)", async () => {
    const headers = { ...ASYNC, "idempotency-key": "daily-release" };
    const mine = await deploy("web", "pull", headers);
    await app.addUser("bea@example.test", "bea-Password-42x", "Bea");
    await app.backend.db.transaction((tx) =>
      tx.update(user).set({ role: "admin" }).where(eq(user.email, "bea@example.test")),
    );
    const bea = await app.signIn("bea@example.test", "bea-Password-42x");
    const theirs = await app.request("/api/v0/deploy", {
      method: "POST",
      headers: { cookie: bea, ...headers },
      json: { stack: "web", action: "pull" },
    });
    expect(theirs.json.run.id).not.toBe(mine.json.run.id);
    await untilFinished(theirs.json.run.id);

    clock.advance(24 * 3_600_000 + 1000);
    const later = await deploy("web", "pull", headers);
    expect(later.status).toBe(202);
    expect(later.json.run.id).not.toBe(mine.json.run.id);
    await untilFinished(later.json.run.id);
    const keys = await app.backend.db
      .select({ key: deployIdempotency.key, runId: deployIdempotency.runId })
      .from(deployIdempotency);
    expect(keys).toEqual([{ key: "daily-release", runId: later.json.run.id }]);
  });
});
