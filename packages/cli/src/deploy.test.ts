// The CLI and the GitHub Action's entry point, built to their single files and run as child processes
// against the real backend and the Komodo simulator, through Debian's nginx with a 5 s read timeout.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { requireNginx } from "../../../apps/backend/src/testing/nginx.ts";
import { type CliWorld, useCliWorld } from "./testing/cli-world.ts";

const SLOW = "slow-web";
const BROKEN = "broken-api";
const QUICK = "quick-worker";
const KOMODO_REASON = "pull access denied for ghcr.io/acme/broken-api, repository does not exist";
/** pull-redeploy is three Komodo steps (pull, take down, deploy): about 10 s on this stack. */
const STEP_MS = 3_400;

describe.runIf(requireNginx())("stackgate deploy through nginx (proxy_read_timeout 5s)", () => {
  const world = useCliWorld({
    stacks: [
      { name: SLOW, faults: { updateDelayMs: STEP_MS } },
      { name: BROKEN, faults: { failWith: KOMODO_REASON } },
      { name: QUICK, faults: { updateDelayMs: 300 } },
      // The stack docs/ci.md's examples deploy: longer than nginx's read timeout.
      { name: "web", faults: { updateDelayMs: 2_000 } },
    ],
  });
  const run = (...args: Parameters<CliWorld["run"]>) => world.run(...args);

  const historyOf = (stack: string) => world.historyOf(stack);
  const komodoExecutes = (stack: string) => world.executes(stack);

  test("a 10 s deploy succeeds behind a 5 s proxy, with its steps in plain lines, and is recorded once", async () => {
    const started = Date.now();
    const result = await run(["deploy", SLOW, "--action", "pull-redeploy", "--timeout", "2m"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThan(3 * STEP_MS - 500);
    expect(result.stdout).toMatch(
      new RegExp(`^Succeeded in \\d:\\d\\d: ${SLOW} · pull-redeploy \\(run [\\w-]+\\)`),
    );
    expect(result.stdout).toContain(`${world.nginx.url}/stacks/${SLOW}`);
    // Not a terminal: timestamped lines, one per step, no redraw escapes.
    expect(result.stderr).toMatch(/^\[\d:\d\d\] slow-web · pull-redeploy: started \(run [\w-]+\)$/m);
    expect(result.stderr).toMatch(/^\[\d:\d\d\] step: pulling images$/m);
    expect(result.stderr).toMatch(/^\[\d:\d\d\] step: deploying$/m);
    expect(result.stderr).not.toContain("\u001b[");
    const history = await historyOf(SLOW);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ success: true, actor: "API Key: release-pipeline" });
    expect(result.stdout).toContain(`(run ${history[0].id})`);
  });

  test("on a terminal, progress is one line redrawn in place", async () => {
    // util-linux's `script` gives the CLI a pseudo-terminal, as a person's shell would.
    const command = `"${process.execPath}" "${join(world.bundleDir, "stackgate.mjs")}" deploy ${QUICK} --action redeploy`;
    const env = { PATH: process.env.PATH, STACKGATE_URL: world.nginx.url, STACKGATE_API_KEY: world.key };
    const { exitCode, stdout } = await new Promise<{ exitCode: number; stdout: string }>((resolve) =>
      execFile("script", ["-qec", command, "/dev/null"], { env }, (error, out) =>
        resolve({ exitCode: error ? Number(error.code) : 0, stdout: out }),
      ),
    );
    world.printed.push({ exitCode, stdout, stderr: "" });
    expect(exitCode, stdout).toBe(0);
    expect(stdout).toMatch(new RegExp(`\r\u001b\\[2K${QUICK} · redeploy · [a-z ]+ · 0:\\d\\d`));
    expect(stdout).toContain("\r\u001b[2KSucceeded in ");
    expect(stdout).not.toMatch(/^\[\d:\d\d\] /m);
  });

  test("--json prints one result document", async () => {
    const result = await run(["deploy", QUICK, "--action", "redeploy", "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout);
    expect(document).toMatchObject({
      outcome: "succeeded",
      success: true,
      stack: QUICK,
      action: "redeploy",
      url: `${world.nginx.url}/stacks/${QUICK}`,
    });
    expect((await historyOf(QUICK))[0].id).toBe(document.runId);
  });

  test("a failed deploy exits 1 with Komodo's reason", async () => {
    const result = await run(["deploy", BROKEN]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(KOMODO_REASON);
    expect(result.stderr).toMatch(new RegExp(`^Failed after \\d:\\d\\d: ${BROKEN} · pull-redeploy`, "m"));
    const [entry] = await historyOf(BROKEN);
    expect(entry).toMatchObject({ success: false });
    expect(entry.message).toContain(KOMODO_REASON);
  });

  test("a wrong key exits 2 and says so, without printing it", async () => {
    const wrongKey = "sg_this-key-does-not-exist-0000000000000000000";
    const result = await run(["deploy", QUICK], { env: { STACKGATE_API_KEY: wrongKey } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("Stackgate refused the API key (401)");
    expect(result.stdout + result.stderr).not.toContain(wrongKey);
  });

  const scopedKey = (name: string, scope: object) => world.scopedKey(name, scope);

  test("an action outside the key's scope exits 2 with Stackgate's reason (403)", async () => {
    const key = await scopedKey("pull-only", { actions: ["pull"] });
    const result = await run(["deploy", QUICK, "--action", "redeploy"], { env: { STACKGATE_API_KEY: key } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      `Stackgate refused to deploy '${QUICK}' (403): This API key may not redeploy`,
    );
    expect(result.stderr).not.toContain(key);
  });

  test("usage errors exit 2 before anything is sent", async () => {
    // Deploy steps only: the previous test's deploy still lists stacks afterwards (the scans it queues).
    const deploySteps = () => world.komodo.calls.filter((call) => call.api === "execute").length;
    const calls = deploySteps();
    expect((await run(["deploy"])).exitCode).toBe(2);
    expect((await run(["deploy", QUICK, "--action", "restart"])).stderr).toContain(
      "--action must be one of pull, redeploy, pull-redeploy",
    );
    expect((await run(["deploy", QUICK, "--timeout", "soon"])).exitCode).toBe(2);
    // Longer than a Node.js timer can wait: such a timer fires at once, which timed out after 150 ms.
    const tooLong = await run(["deploy", QUICK, "--timeout", "597h"]);
    expect(tooLong.exitCode).toBe(2);
    expect(tooLong.stderr.trim()).toBe(
      "stackgate: --timeout can be at most 596h31m (2^31-1 ms, about 24.8 days: the longest the CLI can wait); got '597h'",
    );
    expect((await run(["deploy", QUICK, "--timeout", "596h32m"])).exitCode).toBe(2);
    expect((await run(["deploy", QUICK], { env: { STACKGATE_URL: "" } })).stderr).toContain("STACKGATE_URL");
    expect((await run(["launch", QUICK])).exitCode).toBe(2);
    expect(deploySteps()).toBe(calls);
  });

  test("a run longer than --timeout exits 3 and goes on in Stackgate", async () => {
    const result = await run(["deploy", SLOW, "--timeout", "2s"]);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain(
      `Timed out after 2s: ${SLOW} · pull-redeploy is still running in Stackgate`,
    );
    await expect.poll(async () => (await historyOf(SLOW)).length, { timeout: 20_000, interval: 500 }).toBe(2);
  });

  test("an event stream cut mid-run (nginx reloaded) is followed to the end", async () => {
    let reloaded: Promise<void> | undefined;
    const result = await run(["deploy", SLOW, "--action", "pull-redeploy"], {
      onStderr: (stderr) => {
        if (!reloaded && stderr.includes("step: taking the stack down")) reloaded = world.nginx.reload();
      },
    });
    await reloaded;
    expect(reloaded, "the run never reached its second step").toBeDefined();
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/The event stream was interrupted \(.+\); reconnecting/);
    expect(result.stderr.indexOf("reconnecting")).toBeGreaterThan(
      result.stderr.indexOf("taking the stack down"),
    );
    expect(result.stdout).toContain("Succeeded");
    expect((await historyOf(SLOW))[0].success).toBe(true);
  });

  describe("behind a proxy that loses the answer to the first deploy request", () => {
    let lossy: Server;
    let lossyUrl: string;
    let lostAnswers = 0;
    /** Answers the event stream 404, as a proxy that does not pass it would. */
    let refuseEvents = false;

    beforeAll(async () => {
      lossy = createServer((req, res) => {
        if (refuseEvents && req.url === "/api/v0/deploy/events") {
          res.writeHead(404, { "content-type": "application/json" }).end('{"message":"not here"}');
          return;
        }
        const upstream = httpRequest(`${world.nginx.url}${req.url}`, {
          method: req.method,
          headers: req.headers,
        });
        upstream.on("response", (answer) => {
          if (req.method === "POST" && req.url === "/api/v0/deploy" && lostAnswers === 0) {
            lostAnswers++;
            // Stackgate got the request and answered; the client sees its connection drop.
            answer.resume().on("end", () => req.socket.destroy());
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on("error", () => res.destroy());
        req.pipe(upstream);
      });
      await new Promise<void>((resolve) => lossy.listen(0, "127.0.0.1", resolve));
      lossyUrl = `http://127.0.0.1:${(lossy.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      lossy.closeAllConnections();
      await new Promise((resolve) => lossy.close(resolve));
    });

    test("the retry carries the same Idempotency-Key: one deploy, one history row", async () => {
      const stack = "idempotent-web";
      world.komodo.addStack({ name: stack, faults: { updateDelayMs: 500 } });
      const result = await run(["deploy", stack, "--action", "redeploy"], {
        env: { STACKGATE_URL: lossyUrl },
      });
      expect(lostAnswers).toBe(1);
      expect(result.stderr).toMatch(/Stackgate did not answer \(.+\); retrying in \d+ s/);
      expect(result.exitCode, result.stderr).toBe(0);
      await world.komodo.settle();
      expect(await historyOf(stack)).toHaveLength(1);
      // redeploy of a running stack: one take-down and one deploy, not two of each.
      expect(komodoExecutes(stack)).toBe(2);
    });

    test("where the event stream does not pass, the run is followed by polling it", async () => {
      refuseEvents = true;
      const result = await run(["deploy", QUICK, "--action", "pull"], { env: { STACKGATE_URL: lossyUrl } });
      refuseEvents = false;
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toContain(
        "The event stream is not open to this key (404); following the run by polling",
      );
      // Its stages are read from the run's log, once.
      expect(result.stderr.match(/^\[\d:\d\d\] stage Compose Pull \(ok\)$/gm)).toHaveLength(1);
      expect(result.stdout).toContain(`Succeeded in`);
    });
  });

  test("docs/ci.md's curl path (respond-async, then polling the run) reaches the outcome through the proxy", async () => {
    const docs = readFileSync(join(import.meta.dirname, "../../../docs/ci.md"), "utf8");
    const script = /## Without any tool: curl[\s\S]*?```sh\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(script).toBeDefined();
    const env = {
      PATH: process.env.PATH,
      STACKGATE_URL: world.nginx.url,
      STACKGATE_API_KEY: world.key,
      GIT_SHA: "4711abc",
    };
    const { exitCode, stdout } = await new Promise<{ exitCode: number; stdout: string }>((resolve) =>
      execFile("sh", ["-c", script!], { env }, (error, out) =>
        resolve({ exitCode: error ? Number(error.code) : 0, stdout: out }),
      ),
    );
    expect(exitCode, stdout).toBe(0);
    expect(stdout).toMatch(/^running: (starting|pull|take-down|deploy)$/m);
    expect(stdout.trim().split("\n").at(-1)).toBe("Acción 'pull-redeploy' completada para 'web'");
    expect(await historyOf("web")).toHaveLength(1);
  });

  describe("the GitLab CI template's job script, run by sh with the built CLI as `stackgate`", () => {
    const runJob = (variables: Record<string, string>) => world.runGitlabJob(variables);

    test("a deploy passes the job and hands its run to later jobs", async () => {
      const job = await runJob({ STACKGATE_STACK: QUICK });
      expect(job.exitCode).toBe(0);
      const [latest] = await historyOf(QUICK);
      expect(job.dotenv).toBe(
        `STACKGATE_OUTCOME=succeeded\nSTACKGATE_RUN_ID=${latest.id}\nSTACKGATE_SUCCESS=true\nSTACKGATE_MESSAGE=${latest.message}\n`,
      );
    });

    test("a failed deploy fails the job with Komodo's reason", async () => {
      const job = await runJob({ STACKGATE_STACK: BROKEN });
      expect(job.exitCode).toBe(1);
      expect(job.dotenv).toContain("STACKGATE_OUTCOME=failed\n");
      expect(job.dotenv).toContain("STACKGATE_SUCCESS=false\n");
      expect(job.dotenv).toContain(KOMODO_REASON);
    });
  });

  describe("the GitHub Action's entry point, run as GitHub runs it", () => {
    const runAction = (inputs: Record<string, string>) => world.runAction(inputs);
    const inputs = (stack: string, more: Record<string, string> = {}) => ({ stack, ...more });

    test("a deploy behind the proxy succeeds: outputs and a job summary linking the dashboard", async () => {
      const result = await runAction(inputs(SLOW));
      expect(result.exitCode, result.stderr).toBe(0);
      const [latest] = await historyOf(SLOW);
      expect(result.outputs).toEqual({
        outcome: "succeeded",
        "run-id": latest.id,
        success: "true",
        message: latest.message,
      });
      expect(result.stdout).toContain(`Stackgate succeeded: ${SLOW} · pull-redeploy (run ${latest.id}): `);
      expect(result.stderr).toMatch(/step: deploying/);
      expect(result.summary).toContain(`### ✅ Stackgate: ${SLOW} · pull-redeploy succeeded`);
      expect(result.summary).toContain(`| Run | \`${latest.id}\` |`);
      expect(result.summary).toContain(`(${world.nginx.url}/stacks/${SLOW})`);
      expect(result.summary).toContain(`(${world.nginx.url}/history?stack=${SLOW})`);
    });

    test("a failed deploy fails the step with Komodo's reason in the outputs, the summary and an error annotation", async () => {
      const result = await runAction(inputs(BROKEN));
      expect(result.exitCode).toBe(1);
      expect(result.outputs).toMatchObject({ outcome: "failed", success: "false" });
      expect(result.outputs.message).toContain(KOMODO_REASON);
      expect(result.stdout).toContain(`Stackgate failed: ${BROKEN} · pull-redeploy (run `);
      expect(result.outputs["run-id"]).toBe((await historyOf(BROKEN))[0].id);
      expect(result.summary).toContain("### ❌ Stackgate:");
      expect(result.summary).toContain(KOMODO_REASON);
      expect(result.stdout).toContain(`::error title=Stackgate::`);
    });

    test("a wrong key fails the step with exit code 2", async () => {
      const result = await runAction(
        inputs(QUICK, { "api-key": "sg_wrong-wrong-wrong-wrong-wrong-wrong-wrong1" }),
      );
      expect(result.exitCode).toBe(2);
      expect(result.outputs).toMatchObject({ outcome: "refused", success: "false", "run-id": "" });
      expect(result.outputs.message).toContain("401");
      expect(result.stdout).toMatch(
        /^Stackgate refused: quick-worker · pull-redeploy: Stackgate refused the API key \(401\)/m,
      );
    });
  });
});
