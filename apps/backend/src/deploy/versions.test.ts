import { RUN_LOG_LIMIT_BYTES } from "@stackgate/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConnectedBackend } from "../testing/harness.ts";

// Issue 31: what went out (digests, commit) and every step's output, recorded with each run.
let world: Awaited<ReturnType<typeof startConnectedBackend>>;
beforeAll(async () => {
  world = await startConnectedBackend({
    komodo: {
      stacks: [
        {
          name: "web",
          services: [
            { service: "web", image: "nginx:1.27", updateAvailable: true },
            { service: "cache", image: "redis:7" },
          ],
        },
        { name: "site", repository: { deployed: { hash: "a1b2c3d", message: "Old landing page" } } },
        {
          name: "broken",
          faults: { failWith: "Error response from daemon: pull access denied for acme/broken" },
        },
        { name: "noisy", faults: { failWith: `${"compose progress line\n".repeat(20_000)}the real error` } },
      ],
    },
    env: { SETTLE_SECONDS: "0" },
  });
});
afterAll(() => world.close());

const deploy = async (stack: string, action: string) => {
  const started = await world.app.request("/api/v0/deploy", {
    method: "POST",
    headers: { "x-api-key": world.key, prefer: "respond-async" },
    json: { stack, action },
  });
  expect(started.status, started.text).toBe(202);
  const id = started.json.run.id as string;
  await expect.poll(async () => (await run(id)).status).toBe("finished");
  return run(id);
};
const run = async (id: string) =>
  (await world.app.request(`/api/v0/deploy/runs/${id}`, { headers: { "x-api-key": world.key } })).json.run;
const history = async (query = "") => {
  const answer = await world.app.request(`/api/v0/history${query}`, { headers: { "x-api-key": world.key } });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.history;
};
const logsOf = async (id: string) =>
  (await world.app.request(`/api/v0/deploy/runs/${id}/logs`, { headers: { "x-api-key": world.key } })).json;

describe("what a deploy changed", () => {
  it("a pull-redeploy with an update records both digests of the updated service, and no change of the other", async () => {
    const done = await deploy("web", "pull-redeploy");
    expect(done.success).toBe(true);
    const web = done.changes.find((change: { service: string }) => change.service === "web");
    const cache = done.changes.find((change: { service: string }) => change.service === "cache");
    expect(web).toEqual({
      service: "web",
      image: "nginx:1.27",
      from: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      to: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(web.to).not.toBe(web.from);
    expect(cache.to).toBe(cache.from);
    expect(done.commit).toBeNull();
    // The history entry says the same, and the history can be narrowed to the deploys that changed an image.
    const [entry] = await history("?limit=1");
    expect(entry).toMatchObject({ id: done.id, changes: done.changes });
    expect((await history("?image=nginx:1.27")).map((each: { id: string }) => each.id)).toEqual([done.id]);
    expect(await history("?image=redis:7")).toEqual([]);
  });

  it("a redeploy of the same images records no change, though Komodo pulls first", async () => {
    const done = await deploy("web", "redeploy");
    expect(
      done.changes.every(
        (change: { from: string; to: string }) => change.from !== null && change.from === change.to,
      ),
    ).toBe(true);
  });

  it("a repository stack records the commit it went from and to, with its message", async () => {
    world.komodo.pushCommit("site", { hash: "e4f5a6b", message: "Add the pricing page" });
    const done = await deploy("site", "redeploy");
    expect(done.commit).toEqual({ from: "a1b2c3d", to: "e4f5a6b", message: "Add the pricing page" });
    const [entry] = await history("?stack=site");
    expect(entry.commit).toEqual(done.commit);
  });

  it("a pull records what runs, unchanged, and no commit: it deploys none", async () => {
    const done = await deploy("site", "pull");
    expect(done.success).toBe(true);
    expect(done.changes.length).toBeGreaterThan(0);
    expect(done.changes.every((change: { from: string; to: string }) => change.from === change.to)).toBe(
      true,
    );
    expect(done.commit).toBeNull();
  });

  it("shows what each service runs now, since when and from which deploy", async () => {
    const now = await world.app.request("/api/v0/stacks/web/services", {
      headers: { "x-api-key": world.key },
    });
    expect(now.status, now.text).toBe(200);
    const [pulled] = await history("?image=nginx:1.27");
    const web = now.json.services.find((service: { service: string }) => service.service === "web");
    expect(web).toMatchObject({
      image: "nginx:1.27",
      digest: pulled.changes.find((change: { service: string }) => change.service === "web").to,
      state: "running",
      runId: pulled.id,
    });
    expect(Date.parse(web.since)).toBe(Date.parse(pulled.createdAt));
  });
});

describe("every step's output", () => {
  it("keeps each Komodo stage with its command, output, success and times", async () => {
    const done = await deploy("web", "pull-redeploy");
    const { stages, truncated } = await logsOf(done.id);
    expect(truncated).toBe(false);
    expect(stages.map((stage: { stage: string }) => stage.stage)).toEqual([
      "Compose Pull",
      "Compose Down",
      "Compose Pull",
      "Compose Up",
    ]);
    expect(stages[3]).toMatchObject({
      command: expect.stringContaining("up -d"),
      stderr: expect.stringContaining("Container web-web-1  Started"),
      success: true,
      startedAt: expect.any(String),
      endedAt: expect.any(String),
    });
  });

  it("keeps a failed stage's stderr, which says why", async () => {
    const failed = await world.app.request("/api/v0/deploy", {
      method: "POST",
      headers: { "x-api-key": world.key },
      json: { stack: "broken", action: "pull" },
    });
    expect(failed.status).toBe(502);
    const [entry] = await history("?stack=broken");
    const { stages } = await logsOf(entry.id);
    expect(stages.at(-1)).toMatchObject({
      stage: "Compose Pull",
      success: false,
      stderr: "Error response from daemon: pull access denied for acme/broken",
    });
  });

  it("cuts a run's output at 256 KiB, keeps the end of what it cuts, and says so", async () => {
    await world.app.request("/api/v0/deploy", {
      method: "POST",
      headers: { "x-api-key": world.key },
      json: { stack: "noisy", action: "pull" },
    });
    const [entry] = await history("?stack=noisy");
    const { stages, truncated } = await logsOf(entry.id);
    expect(truncated).toBe(true);
    const size = stages.reduce(
      (sum: number, stage: { stdout: string; stderr: string }) =>
        sum + Buffer.byteLength(stage.stdout) + Buffer.byteLength(stage.stderr),
      0,
    );
    expect(size).toBeLessThanOrEqual(RUN_LOG_LIMIT_BYTES);
    expect(stages.at(-1).stderr).toMatch(/^\[… the start of this output was cut/);
    expect(stages.at(-1).stderr).toMatch(/the real error$/);
    // Komodo's reason is in the run's message all the same, its start and end.
    expect(entry.message).toMatch(/the real error$/);
  });

  it("answers 404 for a run nobody may see, and a scoped key sees only its stacks' logs", async () => {
    expect(
      (
        await world.app.request("/api/v0/deploy/runs/no-such-run/logs", {
          headers: { "x-api-key": world.key },
        })
      ).status,
    ).toBe(404);
    const scoped = await world.app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie: world.cookie },
      json: { name: "site-only", scope: { stacks: ["site"] } },
    });
    const [webRun] = await history("?stack=web");
    expect(
      (
        await world.app.request(`/api/v0/deploy/runs/${webRun.id}/logs`, {
          headers: { "x-api-key": scoped.json.key },
        })
      ).status,
    ).toBe(404);
  });
});
