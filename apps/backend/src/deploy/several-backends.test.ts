import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { INTERRUPTED_MESSAGE } from "../history/service.ts";
import { databaseEnvironmentOf, onPostgres } from "../testing/database.ts";
import { openEventStream } from "../testing/event-stream.ts";
import {
  startConnectedBackend,
  startTestBackend,
  TEST_AUTH_SECRET,
  type TestBackend,
} from "../testing/harness.ts";
import { startBackendProcess } from "./backend-process.ts";

const UPDATE_MS = 400;
const ENV = {
  SCANNER_SWEEP_DELAY_SECONDS: "1",
  SCANNER_SWEEP_INTERVAL_SECONDS: "1",
  SIGN_IN_MAX_FAILURES_PER_ACCOUNT: "3",
};

// Two backends on one PostgreSQL database, as behind a gateway with BACKEND_URLS.
describe.skipIf(!onPostgres())("several backends on one PostgreSQL", () => {
  let world: Awaited<ReturnType<typeof startConnectedBackend>>;
  let other: TestBackend;
  beforeAll(async () => {
    world = await startConnectedBackend({
      komodo: {
        stacks: [
          { name: "web", state: "running" },
          { name: "shared", state: "running" },
        ],
        faults: { updateDelayMs: UPDATE_MS },
      },
      env: ENV,
    });
    const { DATABASE_URL } = databaseEnvironmentOf(world.app.dataDir);
    other = await startTestBackend({ env: { ...ENV, DATABASE_URL: DATABASE_URL! } });
  });
  afterAll(async () => {
    await other?.close();
    await world?.close();
  });

  const deployVia = (app: TestBackend, stack: string, headers: Record<string, string> = {}) =>
    app.request("/api/v0/deploy", {
      method: "POST",
      headers: { "x-api-key": world.key, ...headers },
      json: { stack, action: "pull" },
    });

  /**
   * An event stream of `app` whose first message lists the run `runId` in progress. A backend hears
   * of another's run by a database notification, a moment after that one's 202: this waits for it.
   */
  const openStreamListing = (app: TestBackend, runId: string) =>
    vi.waitFor(
      async () => {
        const stream = await openEventStream(`${app.url}/api/v0/deploy/events`, { "x-api-key": world.key });
        const subscribed = (await stream.next()) as { type: string; running?: { id: string }[] };
        if (subscribed.running?.some(({ id }) => id === runId)) return stream;
        stream.close();
        throw new Error(`The event stream does not list the run in progress: ${JSON.stringify(subscribed)}`);
      },
      { timeout: 2_500, interval: 100 },
    );

  it("every backend's event stream carries every deploy, and lists the runs in progress on the others", async () => {
    // Long enough for the other backend to hear of the run however loaded the machine is.
    world.komodo.addStack({ name: "lasting", faults: { updateDelayMs: 3_000 } });
    const held = await deployVia(world.app, "lasting", { prefer: "respond-async" });
    expect(held.status).toBe(202);
    const { run } = held.json;
    type RunEvent = { type: string; run: { id: string; success: boolean } };
    const stream = await openStreamListing(other, run.id);
    try {
      let finished: RunEvent | undefined;
      while (!finished) {
        const event = (await stream.next(10_000)) as RunEvent;
        if (event.type === "finished" && event.run.id === run.id) finished = event;
      }
      expect(finished.run.success).toBe(true);
    } finally {
      stream.close();
    }
  });

  it("runs one deploy of a stack at a time, whichever backend each was sent to", async () => {
    world.komodo.clearCalls();
    const answers = await Promise.all(
      [world.app, other, world.app, other].map((app) => deployVia(app, "shared")),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const pulls = world.komodo.calls
      .filter(
        (call) =>
          call.api === "execute" &&
          call.type === "PullStack" &&
          (call.params as { stack: string }).stack === "shared",
      )
      .map((call) => call.at)
      .sort((a, b) => a - b);
    expect(pulls).toHaveLength(4);
    // Each pull reached Komodo only once the one before had ended (its Update takes UPDATE_MS).
    for (let index = 1; index < pulls.length; index++) {
      expect(pulls[index]! - pulls[index - 1]!).toBeGreaterThanOrEqual(UPDATE_MS * 0.9);
    }
  });

  it("sees the Komodo connection another backend saved, and sweeps on one backend only", async () => {
    const cookie = await other.signIn();
    const stacks = await other.request("/api/v0/stacks", { headers: { cookie } });
    expect(stacks.status).toBe(200);
    const swept = (app: TestBackend) =>
      app.logLines.filter((line) => line.includes("background sweep done")).length;
    await vi.waitFor(() => expect(swept(world.app) + swept(other)).toBeGreaterThanOrEqual(2), {
      timeout: 15_000,
      interval: 250,
    });
    expect(Math.min(swept(world.app), swept(other))).toBe(0);
  });

  it("counts failed sign-ins over all backends", async () => {
    const attempt = (app: TestBackend) =>
      app.request("/api/auth/sign-in/email", {
        method: "POST",
        json: { email: "admin@example.test", password: "not-the-password" },
      });
    expect((await attempt(world.app)).status).toBe(401);
    expect((await attempt(world.app)).status).toBe(401);
    expect((await attempt(other)).status).toBe(401);
    // The third failure reaches the first backend by a database notification: milliseconds, but
    // more on a loaded machine. Not polled: each attempt there would be a failure of its own.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await attempt(world.app)).status).toBe(429);
  });

  it("records a deploy cut off by a backend killed with kill -9 with Komodo's own outcome, from a surviving backend, within 30 s", async () => {
    // Held in Komodo until the test lets it end, after the backend that sent it is gone.
    world.komodo.addStack({ name: "glacial", faults: { holdUpdates: true } });
    const doomed = await startBackendProcess({
      dataDir: mkdtempSync(join(tmpdir(), "stackgate-doomed-")),
      adminPassword: "doomed-password-1",
      env: {
        ...databaseEnvironmentOf(world.app.dataDir),
        DATA_DIR: mkdtempSync(join(tmpdir(), "stackgate-doomed-")),
        BETTER_AUTH_SECRET: TEST_AUTH_SECRET,
      },
    });
    let stream: Awaited<ReturnType<typeof openStreamListing>> | undefined;
    try {
      const started = await fetch(`${doomed.url}/api/v0/deploy`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": world.key, prefer: "respond-async" },
        body: JSON.stringify({ stack: "glacial", action: "pull" }),
      });
      expect(started.status).toBe(202);
      const { run } = (await started.json()) as { run: { id: string } };
      stream = await openStreamListing(world.app, run.id);
      await world.komodo.whenHeld("glacial");
      // Its Update noted before it is followed: the step shows once it is.
      await vi.waitFor(
        async () =>
          expect(
            (
              await world.app.request(`/api/v0/deploy/runs/${run.id}`, {
                headers: { "x-api-key": world.key },
              })
            ).json.run.step,
          ).toBe("pull"),
        { timeout: 5_000, interval: 50 },
      );
      doomed.child.kill("SIGKILL");
      await doomed.exited;
      const killedAt = Date.now();
      // The pull ends in Komodo, successfully, with nobody following it any more.
      world.komodo.releaseUpdates("glacial");
      type RunEvent = { type: string; run: { id: string; success: boolean; message: string } };
      let finished: RunEvent | undefined;
      while (!finished) {
        const event = (await stream.next(30_000)) as RunEvent;
        if (event.type === "finished" && event.run.id === run.id) finished = event;
      }
      expect(Date.now() - killedAt).toBeLessThan(30_000);
      const recovered = expect.stringMatching(/^Acción 'pull' completada para 'glacial' \(recovered: /);
      expect(finished.run).toMatchObject({ success: true, message: recovered });
      const history = await world.app.request(`/api/v0/deploy/runs/${run.id}`, {
        headers: { "x-api-key": world.key },
      });
      expect(history.json.run).toMatchObject({ status: "finished", success: true, message: recovered });
      expect(history.json.run.changes).toEqual([expect.objectContaining({ service: "glacial" })]);
      const logs = await world.app.request(`/api/v0/deploy/runs/${run.id}/logs`, {
        headers: { "x-api-key": world.key },
      });
      expect(logs.json.stages.map((stage: { stage: string }) => stage.stage)).toEqual(["Compose Pull"]);
      expect(logs.json.stages[0].success).toBe(true);
      expect(finished.run.message).not.toBe(INTERRUPTED_MESSAGE);
    } finally {
      stream?.close();
      doomed.child.kill("SIGKILL");
    }
  }, 60_000);
});
