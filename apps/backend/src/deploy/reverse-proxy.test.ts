import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createGateway } from "@stackgate/gateway";
import type { KomodoSimulator } from "@stackgate/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startConnectedBackend, type TestBackend } from "../testing/harness.ts";
import { type Nginx, requireNginx, startNginx } from "../testing/nginx.ts";

/**
 * Issue 22: a deploy that outlasts the reverse proxy in front of Stackgate. nginx with
 * `proxy_read_timeout 5s` in front of the gateway, and a redeploy that takes 10 s on the simulator
 * (5 s to take the stack down, 5 s to deploy it).
 */

const STEP_MS = 5000;

let komodo: KomodoSimulator;
let app: TestBackend;
let cookie: string;
let key: string;
let gateway: Server;
let nginx: Nginx;
let close: () => Promise<void>;

describe.skipIf(!requireNginx())("behind nginx with proxy_read_timeout 5s", () => {
  beforeAll(async () => {
    ({ komodo, app, cookie, key, close } = await startConnectedBackend({
      komodo: {
        stacks: [
          { name: "big-images", state: "running", faults: { updateDelayMs: STEP_MS } },
          { name: "web", state: "running", faults: { updateDelayMs: 3000 } },
        ],
      },
      keyName: "release-pipeline",
    }));
    gateway = createGateway({ backendUrl: app.url, frontendUrl: "http://127.0.0.1:9", version: "test" });
    await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
    nginx = await startNginx({
      upstream: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`,
      readTimeoutSeconds: 5,
    });
  });
  afterAll(async () => {
    await nginx?.stop();
    gateway?.closeAllConnections();
    gateway?.close();
    await close?.();
  });
  beforeEach(() => komodo.clearCalls());

  const post = (headers: Record<string, string>) =>
    fetch(`${nginx.url}/api/v0/deploy`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", ...headers },
      body: JSON.stringify({ stack: "big-images", action: "redeploy" }),
    });
  const getRun = async (location: string) => {
    const response = await fetch(nginx.url + location, { headers: { "x-api-key": key } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { run: Record<string, unknown> }).run;
  };
  /** Polls the run through nginx as a pipeline would, and returns its end and the steps it saw. */
  async function follow(location: string) {
    const steps: unknown[] = [];
    for (;;) {
      const run = await getRun(location);
      if (run.status === "finished") return { run, steps };
      if (run.step && steps.at(-1) !== run.step) steps.push(run.step);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  const rowsOf = async (stack: string) =>
    ((await app.request(`/api/v0/history?stack=${stack}`, { headers: { cookie } })).json.history as unknown[])
      .length;
  const executes = () => komodo.calls.filter((call) => call.api === "execute").map((call) => call.type);

  it("the synchronous call meets nginx's 504; with respond-async, polling the run reaches the real outcome", async () => {
    const rowsBefore = await rowsOf("big-images");
    const cutAt = performance.now();
    const held = await post({});
    expect(held.status).toBe(504);
    expect(await held.text()).toMatch(/504 Gateway Time-out/);
    expect(performance.now() - cutAt).toBeLessThan(2 * STEP_MS);
    // The pipeline failed, yet the deploy goes on in Komodo and ends in the history.
    await expect
      .poll(() => rowsOf("big-images"), { timeout: 4 * STEP_MS, interval: 250 })
      .toBe(rowsBefore + 1);

    komodo.clearCalls();
    const startedAt = performance.now();
    const accepted = await post({ prefer: "respond-async" });
    expect(accepted.status).toBe(202);
    expect(performance.now() - startedAt).toBeLessThan(1000);
    const location = accepted.headers.get("location")!;
    const { run, steps } = await follow(location);
    expect(run).toMatchObject({ success: true, message: "Acción 'redeploy' completada para 'big-images'" });
    expect(steps).toEqual(["take-down", "deploy"]);
    expect(executes()).toEqual(["DestroyStack", "DeployStack"]);
  }, 60_000);

  it("a request retried with the same Idempotency-Key after the 504 deploys once; the history shows one row", async () => {
    const rowsBefore = await rowsOf("big-images");
    const idempotencyKey = `release-${Date.now()}`;
    const first = await post({ "idempotency-key": idempotencyKey });
    expect(first.status).toBe(504);
    // The pipeline's retry, now asynchronous: the same run, still running, not a second deploy.
    const retry = await post({ "idempotency-key": idempotencyKey, prefer: "respond-async" });
    expect(retry.status).toBe(202);
    const location = retry.headers.get("location")!;
    expect((await getRun(location)).status).toBe("running");
    const again = await post({ "idempotency-key": idempotencyKey, prefer: "respond-async" });
    expect(again.headers.get("location")).toBe(location);

    const { run } = await follow(location);
    expect(run.success).toBe(true);
    expect(executes()).toEqual(["DestroyStack", "DeployStack"]);
    expect(await rowsOf("big-images")).toBe(rowsBefore + 1);
  }, 60_000);

  it("the curl path of docs/ci.md, run as written, deploys through nginx and reports the outcome", async () => {
    const guide = readFileSync(new URL("../../../../docs/ci.md", import.meta.url), "utf8");
    const section = guide.slice(guide.indexOf("### Behind a reverse proxy"));
    const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    expect(script).toContain("Prefer: respond-async");
    const env = {
      ...process.env,
      STACKGATE_URL: nginx.url,
      STACKGATE_API_KEY: key,
      GIT_SHA: `${Date.now()}`,
    };
    const run = () =>
      new Promise<{ code: number; stdout: string }>((resolve) =>
        execFile("sh", ["-c", script!], { env }, (error, stdout) =>
          resolve({ code: error ? Number(error.code) : 0, stdout }),
        ),
      );
    const first = await run();
    expect(first.stdout).toMatch(/running: (pull|take-down|deploy)/);
    expect(first.stdout).toContain("Acción 'pull-redeploy' completada para 'web'");
    expect(first.code).toBe(0);
    // The job retried: the same key answers the same (finished) run, and nothing is deployed again.
    komodo.clearCalls();
    const retried = await run();
    expect(retried.code).toBe(0);
    expect(executes()).toEqual([]);
  }, 60_000);
});
