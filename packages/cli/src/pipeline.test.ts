// A pipeline author's first day (issue 32), with the built CLI and the GitHub Action's entry point run
// as child processes through Debian's nginx (5 s read timeout) and the real gateway to the real
// backend and the Komodo simulator: re-runs attach instead of deploying twice, a failed deploy can be
// retried, --detach and wait, a key that reads nothing follows its own run, a mistyped name or address
// fails at once, Ctrl-C and a cancelled job leave the deploy running and say so.
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { delimiter, join, relative } from "node:path";
import { freePort } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ADMIN } from "../../../apps/backend/src/testing/harness.ts";
import { requireNginx } from "../../../apps/backend/src/testing/nginx.ts";
import { type CliWorld, UUID, useCliWorld } from "./testing/cli-world.ts";

const SLOW = "slow-api";
const BROKEN = "broken-worker";
const QUICK = "quick-web";
const KOMODO_REASON = "pull access denied for ghcr.io/acme/broken-worker";
/** pull-redeploy on SLOW is three steps of this long each. */
const STEP_MS = 2_500;

/** The GitHub Actions variables of one job of one workflow run; a re-run of the job has a new attempt. */
const github = (runId: string, attempt = 1) => ({
  CI: "true",
  GITHUB_ACTIONS: "true",
  GITHUB_REPOSITORY: "acme/shop",
  GITHUB_RUN_ID: runId,
  GITHUB_RUN_ATTEMPT: String(attempt),
  GITHUB_JOB: "deploy",
});
/** GitLab CI's variables of one job of one pipeline; a retry of the job has a new job id. */
const gitlab = (pipelineId: string, jobId: number) => ({
  CI: "true",
  GITLAB_CI: "true",
  CI_PROJECT_PATH: "acme/shop",
  CI_PIPELINE_ID: pipelineId,
  CI_JOB_NAME: "deploy-web",
  CI_JOB_ID: String(jobId),
});

/**
 * A Node.js 20, the oldest the single file supports: NODE20_BIN, or a `node` on the PATH whose major
 * is 20 (npm scripts put the pinned Node 24 first on it; the machine's own may come later). `.ci/run`
 * and the CI workflow set NODE20_BIN, and CI never skips; elsewhere a machine without one skips loudly.
 */
function node20(): string | undefined {
  const major20 = (file: string) => {
    try {
      return execFileSync(file, ["--version"], { encoding: "utf8" }).startsWith("v20.");
    } catch {
      return false;
    }
  };
  const given = process.env.NODE20_BIN;
  if (given) {
    if (major20(given)) return given;
    throw new Error(`NODE20_BIN (${given}) is not a Node.js 20`);
  }
  const onPath = (process.env.PATH ?? "").split(delimiter).map((dir) => join(dir || ".", "node"));
  const found = onPath.find(major20);
  if (found) return found;
  if (process.env.CI)
    throw new Error(
      "No Node.js 20 (set NODE20_BIN, or put one on the PATH): CI never skips the Node 20 test",
    );
  console.warn(
    "\n!!! SKIPPED: the single file on Node.js 20: no Node.js 20 here (set NODE20_BIN, or put one on the PATH)\n",
  );
  return undefined;
}

describe.runIf(requireNginx())("a pipeline author's first day, through nginx and the gateway", () => {
  const world = useCliWorld({
    stacks: [
      { name: SLOW, faults: { updateDelayMs: STEP_MS } },
      { name: BROKEN, faults: { failWith: KOMODO_REASON } },
      { name: QUICK, faults: { updateDelayMs: 200 } },
      // The stack docs/ci.md's examples deploy.
      { name: "web", faults: { updateDelayMs: 200 } },
    ],
  });
  const run = (...args: Parameters<CliWorld["run"]>) => world.run(...args);
  const executes = (stack: string) => world.executes(stack);

  describe("re-runs", () => {
    test("a re-run of a CI job attaches to the run its first attempt started: following it, then 'already deployed'", async () => {
      const stack = "rerun-web";
      world.komodo.addStack({ name: stack, faults: { updateDelayMs: STEP_MS } });
      // The first attempt gives up early; the deploy goes on.
      const first = await run(["deploy", stack, "--timeout", "1s"], { env: github("7001") });
      expect(first.exitCode, first.stderr).toBe(3);
      const runId = new RegExp(`started \\(run (${UUID})\\)`).exec(first.stderr)?.[1];
      expect(runId).toBeDefined();

      const second = await run(["deploy", stack], { env: github("7001", 2) });
      expect(second.exitCode, second.stderr).toBe(0);
      expect(second.stderr).toMatch(
        new RegExp(
          `${stack} · pull-redeploy: already started at \\S+ by an earlier attempt of this job \\(the same idempotency key\\); following it \\(run ${runId}\\)`,
        ),
      );
      const third = await run(["deploy", stack], { env: github("7001", 3) });
      expect(third.exitCode, third.stderr).toBe(0);
      expect(third.stdout).toMatch(
        new RegExp(`^Already deployed by run ${runId} at \\d{4}-\\S+: ${stack} · pull-redeploy$`, "m"),
      );
      expect(third.stderr).toContain("--new-run deploys again");
      expect(await world.historyOf(stack)).toHaveLength(1);
      expect(executes(stack)).toBe(3);

      // Another workflow run, or --new-run, deploys again.
      const again = await run(["deploy", stack, "--new-run", "--json"], { env: github("7001", 4) });
      expect(again.exitCode, again.stderr).toBe(0);
      const document = JSON.parse(again.stdout);
      expect(document.runId).not.toBe(runId);
      expect(document.attached).toBeUndefined();
      expect(await world.historyOf(stack)).toHaveLength(2);
    });

    test("a re-run after a failed deploy deploys again (GitLab CI: the same pipeline and job)", async () => {
      const stack = "flaky-api";
      world.komodo.addStack({ name: stack, faults: { failWith: KOMODO_REASON } });
      const failed = await run(["deploy", stack, "--action", "pull"], { env: gitlab("88", 1) });
      expect(failed.exitCode).toBe(1);
      expect(failed.stderr).toContain(KOMODO_REASON);
      world.komodo.faults.setStack(stack, { failWith: undefined });
      const retried = await run(["deploy", stack, "--action", "pull"], { env: gitlab("88", 2) });
      expect(retried.exitCode, retried.stderr).toBe(0);
      expect(retried.stdout).toMatch(/^Succeeded in /);
      expect((await world.historyOf(stack)).map((entry) => entry.success)).toEqual([true, false]);
      // The retry of the retry attaches to its success.
      const third = await run(["deploy", stack, "--action", "pull"], { env: gitlab("88", 3) });
      expect(third.stdout).toMatch(/^Already deployed by run /);
      expect(executes(stack)).toBe(2);
    });

    test("the GitLab template's retried job attaches too, and hands on the same run", async () => {
      const stack = "template-web";
      world.komodo.addStack({ name: stack, faults: { updateDelayMs: 100 } });
      const variables = { STACKGATE_STACK: stack, ...gitlab("91", 1) };
      const first = await world.runGitlabJob(variables);
      const retry = await world.runGitlabJob({ ...variables, CI_JOB_ID: "2" });
      expect([first.exitCode, retry.exitCode]).toEqual([0, 0]);
      const [only] = await world.historyOf(stack);
      expect(retry.dotenv).toContain(`STACKGATE_OUTCOME=succeeded\nSTACKGATE_RUN_ID=${only!.id}\n`);
      expect(first.dotenv).toBe(retry.dotenv);
      expect(await world.historyOf(stack)).toHaveLength(1);
      const forced = await world.runGitlabJob({ ...variables, CI_JOB_ID: "3", STACKGATE_NEW_RUN: "true" });
      expect(forced.exitCode).toBe(0);
      expect(await world.historyOf(stack)).toHaveLength(2);
    });

    test("--idempotency-key and STACKGATE_IDEMPOTENCY_KEY name the run; a bad one or one beside --new-run is a usage error", async () => {
      const first = await run(["deploy", QUICK, "--action", "pull", "--idempotency-key", "release-42-quick"]);
      const second = await run(["deploy", QUICK, "--action", "pull"], {
        env: { STACKGATE_IDEMPOTENCY_KEY: "release-42-quick" },
      });
      expect([first.exitCode, second.exitCode]).toEqual([0, 0]);
      expect(second.stdout).toMatch(/^Already deployed by run /);
      const contradiction = await run(["deploy", QUICK, "--idempotency-key", "k", "--new-run"]);
      expect(contradiction.exitCode).toBe(2);
      expect(contradiction.stderr).toContain("--new-run and --idempotency-key contradict each other");
      const spaced = await run(["deploy", QUICK], { env: { STACKGATE_IDEMPOTENCY_KEY: "a b" } });
      expect(spaced.exitCode).toBe(2);
      expect(spaced.stderr).toContain("STACKGATE_IDEMPOTENCY_KEY must be 1 to 255 visible ASCII characters");
    });
  });

  describe("--detach and wait", () => {
    test("--detach prints the run's id once accepted and exits 0; wait follows it to its end", async () => {
      const started = Date.now();
      const detached = await run(["deploy", SLOW, "--detach"]);
      expect(detached.exitCode, detached.stderr).toBe(0);
      expect(Date.now() - started).toBeLessThan(STEP_MS * 2);
      expect(detached.stdout).toMatch(new RegExp(`^${UUID}\\n$`));
      const runId = detached.stdout.trim();
      expect(detached.stderr).toContain(
        `${SLOW} · pull-redeploy: run ${runId} goes on in Stackgate: ${world.nginx.url}/stacks/${SLOW}\nFollow it with: stackgate wait ${runId}\n`,
      );
      const waited = await run(["wait", runId]);
      expect(waited.exitCode, waited.stderr).toBe(0);
      expect(waited.stdout).toMatch(
        new RegExp(`^Succeeded in \\d:\\d\\d: ${SLOW} · pull-redeploy \\(run ${runId}\\)`),
      );
      expect(waited.stderr).toMatch(/step: deploying/);
      // A finished run is answered at once.
      expect((await run(["wait", runId, "--json"])).stdout).toContain('"outcome": "succeeded"');
    });

    test("wait exits as deploy would: 1 for a failed run, 3 on its timeout, 2 for a run it cannot see", async () => {
      const failing = JSON.parse((await run(["deploy", BROKEN, "--detach", "--json"])).stdout);
      expect(failing).toMatchObject({
        outcome: "detached",
        stack: BROKEN,
        runId: expect.stringMatching(UUID),
      });
      const failed = await run(["wait", failing.runId]);
      expect(failed.exitCode).toBe(1);
      expect(failed.stderr).toContain(KOMODO_REASON);

      const slow = (await run(["deploy", SLOW, "--detach"])).stdout.trim();
      const timedOut = await run(["wait", slow, "--timeout", "1s"]);
      expect(timedOut.exitCode).toBe(3);
      expect(timedOut.stderr).toContain(
        `Timed out after 1s: ${SLOW} · pull-redeploy is still running in Stackgate`,
      );

      const unknown = await run(["wait", "no-such-run", "--json"]);
      expect(unknown.exitCode).toBe(2);
      expect(JSON.parse(unknown.stdout)).toMatchObject({
        outcome: "refused",
        runId: "no-such-run",
        url: world.nginx.url,
        exitCode: 2,
      });
      // Someone else's run, to a key that follows only its own.
      const ownOnly = await world.scopedKey("own-only", { read: [] });
      const hidden = await run(["wait", slow], { env: { STACKGATE_API_KEY: ownOnly } });
      expect(hidden.exitCode).toBe(2);
      expect(hidden.stderr).toContain(`No run '${slow}'`);
    });
  });

  describe("keys and stacks", () => {
    test("docs/ci.md's key without the dashboard, run as written, makes a key that deploys web and follows its run", async () => {
      const docs = readFileSync(join(import.meta.dirname, "../../../docs/ci.md"), "utf8");
      const script = /### An API key without the dashboard[\s\S]*?```sh\n([\s\S]*?)```/.exec(docs)?.[1];
      expect(script).toContain("/api/v0/apikeys");
      const made = await new Promise<{ exitCode: number; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(
          "bash",
          ["-c", script!],
          { env: { PATH: process.env.PATH, STACKGATE_URL: world.nginx.url, STACKGATE_EMAIL: ADMIN.email } },
          (error, stdout, stderr) => resolve({ exitCode: error ? Number(error.code) : 0, stdout, stderr }),
        );
        child.stdin!.end(`${ADMIN.password}\n`);
      });
      expect(made.exitCode, made.stderr).toBe(0);
      expect(made.stdout).toMatch(/^Password: \nsg_\S+\n$/);
      const key = made.stdout.trim().split("\n").at(-1)!;
      const deployed = await run(["deploy", "web"], { env: { STACKGATE_API_KEY: key } });
      expect(deployed.exitCode, deployed.stderr).toBe(0);
      expect(deployed.stdout).toMatch(/^Succeeded in /);
      const refused = await run(["deploy", "web", "--action", "pull"], { env: { STACKGATE_API_KEY: key } });
      expect(refused.exitCode).toBe(2);
    });

    test("a key scoped to one stack and pull, reading nothing, deploys and follows its own run", async () => {
      const key = await world.scopedKey("least-privilege", { stacks: [QUICK], actions: ["pull"], read: [] });
      const result = await run(["deploy", QUICK, "--action", "pull"], { env: { STACKGATE_API_KEY: key } });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toMatch(
        new RegExp(`^Succeeded in \\d:\\d\\d: ${QUICK} · pull \\(run ${UUID}\\)`),
      );
      expect(result.stderr).not.toMatch(/403|not open to this key|polling/);
      expect(result.stdout + result.stderr).not.toContain(key);
      // What it may not do is refused before anything is deployed.
      const before = executes(QUICK);
      const refused = await run(["deploy", QUICK, "--action", "redeploy"], {
        env: { STACKGATE_API_KEY: key },
      });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(
        `Stackgate refused to deploy '${QUICK}' (403): This API key may not redeploy`,
      );
      expect(executes(QUICK)).toBe(before);
    });

    test("a stack that does not exist: exit 2 without deploying, with the nearest names when the key may list stacks", async () => {
      const typo = await run(["deploy", "quick-wbe"]);
      expect(typo.exitCode).toBe(2);
      expect(typo.stderr).toBe(
        `stackgate: no stack named quick-wbe; nothing was deployed. Did you mean ${QUICK}? ('stackgate stacks' lists them)\n`,
      );
      const deployOnly = await world.scopedKey("deploy-only", { read: [] });
      const unknown = await run(["deploy", "no-such-stack", "--json"], {
        env: { STACKGATE_API_KEY: deployOnly },
      });
      expect(unknown.exitCode).toBe(2);
      expect(unknown.stderr).toBe(
        "stackgate: no stack named no-such-stack; nothing was deployed (check the name on Stackgate's Stacks page)\n",
      );
      expect(JSON.parse(unknown.stdout)).toMatchObject({
        outcome: "refused",
        stack: "no-such-stack",
        action: "pull-redeploy",
        url: `${world.nginx.url}/stacks/no-such-stack`,
      });
      // Nothing was recorded or sent to Komodo: the check came first.
      for (const stack of ["quick-wbe", "no-such-stack"]) {
        expect(await world.historyOf(stack)).toEqual([]);
        expect(executes(stack)).toBe(0);
      }
    });
  });

  describe("a wrong address fails within 10 s, naming STACKGATE_URL and what looks wrong", () => {
    let closedPort: number;
    beforeAll(async () => {
      closedPort = await freePort();
    });

    test.each([
      [
        "a host that does not resolve",
        () => "http://stackgate.invalid",
        /the host 'stackgate.invalid' in STACKGATE_URL \(http:\/\/stackgate.invalid\) does not resolve \(ENOTFOUND\)/,
      ],
      [
        "a refused connection",
        () => `http://127.0.0.1:${closedPort}`,
        /nothing accepts connections at STACKGATE_URL \(http:\/\/127\.0\.0\.1:\d+\) \(ECONNREFUSED\)/,
      ],
      [
        "TLS to a plain HTTP port",
        () => world.nginx.url.replace("http:", "https:"),
        /TLS failed with STACKGATE_URL \(https:\/\/127\.0\.0\.1:\d+\) \(ERR_SSL_\w+\)/,
      ],
      [
        "a path where the dashboard answers (HTML)",
        () => `${world.nginx.url}/stackgate`,
        /STACKGATE_URL \(http:\/\/127\.0\.0\.1:\d+\/stackgate\) does not look like Stackgate's address: GET \/api\/v0\/deploy\/check answered a web page \(200: Sign in · Stackgate\)/,
      ],
      [
        "a path under the API (404)",
        () => `${world.nginx.url}/api`,
        /STACKGATE_URL \(http:\/\/127\.0\.0\.1:\d+\/api\) does not look like Stackgate's address: GET \/api\/v0\/deploy\/check answered a 404 \(404: No endpoint GET \/api\/api\/v0\/deploy\/check\)/,
      ],
    ])("%s", async (_, url, message) => {
      const callsBefore = executes(QUICK);
      const started = Date.now();
      const result = await run(["deploy", QUICK], { env: { STACKGATE_URL: url() } });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).not.toMatch(/waiting for Komodo|retrying/);
      expect(executes(QUICK)).toBe(callsBefore);
    });
  });

  describe("behind a proxy answering 502 and 503 for a while", () => {
    let flaky: Server;
    let flakyUrl: string;
    let failuresLeft = 0;

    beforeAll(async () => {
      flaky = createServer((req, res) => {
        if (failuresLeft > 0) {
          failuresLeft--;
          const status = failuresLeft % 2 === 0 ? 502 : 503;
          const text = status === 502 ? "502 Bad Gateway" : "503 Service Temporarily Unavailable";
          res.writeHead(status, { "content-type": "text/html" });
          res.end(
            `<html><head><title>${text}</title></head><body><center><h1>${text}</h1></center><hr><center>nginx</center></body></html>`,
          );
          return;
        }
        res.writeHead(307, { location: `${world.nginx.url}${req.url}` }).end();
      });
      await new Promise<void>((resolve) => flaky.listen(0, "127.0.0.1", resolve));
      flakyUrl = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      flaky.closeAllConnections();
      await new Promise((resolve) => flaky.close(resolve));
    });

    test("retries them within --timeout, and names each status once", async () => {
      failuresLeft = 3;
      const result = await run(["deploy", QUICK, "--action", "pull"], { env: { STACKGATE_URL: flakyUrl } });
      expect(failuresLeft).toBe(0);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/^Stackgate did not answer \(502 Bad Gateway\); retrying in \d+ s$/m);
      expect(result.stderr).toMatch(
        /^Stackgate did not answer \(503 Service Temporarily Unavailable\); retrying in \d+ s$/m,
      );
      expect(result.stderr).not.toMatch(/\b(\d{3}) \1\b/);
      expect(result.stderr).not.toContain("waiting for Komodo");
    });

    test("gives up on them at --timeout", async () => {
      failuresLeft = 1_000;
      const started = Date.now();
      const result = await run(["deploy", QUICK, "--timeout", "3s"], { env: { STACKGATE_URL: flakyUrl } });
      failuresLeft = 0;
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(
        /^stackgate: Could not deploy 'quick-web': Stackgate answered (502 Bad Gateway|503 Service Temporarily Unavailable)$/m,
      );
    });
  });

  describe("progress", () => {
    const onTerminal = (args: string, env: Record<string, string>) => {
      const command = `"${process.execPath}" "${join(world.bundleDir, "stackgate.mjs")}" ${args}`;
      return new Promise<{ exitCode: number; output: string }>((resolve) =>
        execFile(
          "script",
          ["-qec", command, "/dev/null"],
          {
            env: {
              PATH: process.env.PATH,
              STACKGATE_URL: world.nginx.url,
              STACKGATE_API_KEY: world.key,
              ...env,
            },
          },
          (error, output) => {
            world.printed.push({ exitCode: 0, stdout: output, stderr: "" });
            resolve({ exitCode: error ? Number(error.code) : 0, output });
          },
        ),
      );
    };

    test.each([
      ["CI is set", `deploy ${QUICK} --action pull`, { CI: "true" }],
      ["--no-progress", `deploy ${QUICK} --action pull --no-progress`, {}],
    ])("is plain lines on a terminal when %s", async (_, args, env) => {
      const { exitCode, output } = await onTerminal(args, env);
      expect(exitCode, output).toBe(0);
      expect(output).not.toContain("\u001b[");
      expect(output).toMatch(
        new RegExp(`^\\[\\d:\\d\\d\\] ${QUICK} · pull: started \\(run ${UUID}\\)\\r?$`, "m"),
      );
    });
  });

  describe("signals", () => {
    test("Ctrl-C (SIGINT) prints the run and exits 130; the deploy goes on", async () => {
      const stack = "interrupted-web";
      world.komodo.addStack({ name: stack, faults: { updateDelayMs: STEP_MS } });
      let sentAt = 0;
      const result = await run(["deploy", stack], {
        onStderr: (stderr, child) => {
          if (!sentAt && stderr.includes("started (run")) {
            sentAt = Date.now();
            child.kill("SIGINT");
          }
        },
      });
      expect(Date.now() - sentAt).toBeLessThan(2_000);
      expect(result.exitCode).toBe(130);
      const runId = new RegExp(`started \\(run (${UUID})\\)`).exec(result.stderr)?.[1];
      expect(result.stderr).toContain(
        `stopped following run ${runId}; it goes on: ${world.nginx.url}/stacks/${stack}\n`,
      );
      expect(await world.historyOf(stack)).toEqual([]);
      await expect
        .poll(async () => (await world.historyOf(stack))[0], { timeout: 20_000, interval: 500 })
        .toMatchObject({ id: runId, success: true });
    });

    test("SIGTERM exits 143 with the detached outcome in the JSON", async () => {
      const stack = "terminated-web";
      world.komodo.addStack({ name: stack, faults: { updateDelayMs: STEP_MS } });
      let sent = false;
      const result = await run(["deploy", stack, "--json"], {
        onStderr: (stderr, child) => {
          // Once, as a runner cancelling a job sends it: a second signal would land while the CLI exits.
          if (!sent && stderr.includes("started (run")) {
            sent = true;
            child.kill("SIGTERM");
          }
        },
      });
      expect(result.exitCode).toBe(143);
      expect(JSON.parse(result.stdout)).toMatchObject({
        outcome: "detached",
        stack,
        runId: expect.stringMatching(UUID),
        stoppedBy: "SIGTERM",
        url: `${world.nginx.url}/stacks/${stack}`,
      });
    });
  });

  describe("the GitHub Action's outcome", () => {
    const inputs = (stack: string, more: Record<string, string> = {}) => ({ stack, ...more });

    test("on a timeout: outcome timeout, exit 3, one outcome line, a summary that says timeout", async () => {
      const result = await world.runAction(inputs(SLOW, { timeout: "2s" }), { env: github("9001") });
      expect(result.exitCode).toBe(3);
      expect(result.outputs).toMatchObject({
        outcome: "timeout",
        success: "false",
        "run-id": expect.stringMatching(UUID),
      });
      expect(result.stdout.match(/^Stackgate \w+: .*$/gm)).toEqual([
        `Stackgate timeout: ${SLOW} · pull-redeploy (run ${result.outputs["run-id"]}): The run did not finish within the time limit; it goes on in Stackgate (run ${result.outputs["run-id"]})`,
      ]);
      expect(result.summary).toContain("| Outcome | timeout |");
      expect(result.summary).toContain(`### ⏱️ Stackgate: ${SLOW} · pull-redeploy timeout`);
      // Re-running the job attaches to the same run.
      const rerun = await world.runAction(inputs(SLOW), { env: github("9001", 2) });
      expect(rerun.exitCode, rerun.stderr).toBe(0);
      expect(rerun.outputs).toMatchObject({ outcome: "succeeded", "run-id": result.outputs["run-id"] });
    });

    test("on SIGTERM (a cancelled job): the CLI is stopped too, outcome detached, outputs and summary written", async () => {
      const stack = "cancelled-web";
      world.komodo.addStack({ name: stack, faults: { updateDelayMs: STEP_MS } });
      let sentAt = 0;
      const result = await world.runAction(inputs(stack), {
        env: github("9002"),
        onStderr: (stderr, child) => {
          if (!sentAt && stderr.includes("started (run")) {
            sentAt = Date.now();
            child.kill("SIGTERM");
          }
        },
      });
      // Its output closed at once: no CLI left running behind it until the deploy's end.
      expect(Date.now() - sentAt).toBeLessThan(STEP_MS);
      expect(result.exitCode).toBe(143);
      const runId = result.outputs["run-id"];
      expect(runId).toMatch(new RegExp(`^${UUID}$`));
      expect(result.outputs).toMatchObject({ outcome: "detached", success: "false" });
      expect(result.stderr).toContain(
        `stopped following run ${runId}; it goes on: ${world.nginx.url}/stacks/${stack}`,
      );
      expect(result.stderr).not.toContain("EPIPE");
      expect(result.stdout).toMatch(
        new RegExp(`^Stackgate detached: ${stack} · pull-redeploy \\(run ${runId}\\): `, "m"),
      );
      expect(result.stdout).toContain("::warning title=Stackgate::");
      expect(result.summary).toContain("| Outcome | detached |");
      await expect
        .poll(async () => (await world.historyOf(stack))[0], { timeout: 20_000, interval: 500 })
        .toMatchObject({ id: runId, success: true });
    });

    test("without a stack: outcome refused, and still one outcome line", async () => {
      const result = await world.runAction(inputs(""));
      expect(result.exitCode).toBe(2);
      expect(result.outputs.outcome).toBe("refused");
      expect(result.stdout.match(/^Stackgate \w+: .*$/gm)).toEqual([
        "Stackgate refused: The input 'stack' is required",
      ]);
    });
  });

  describe("the single file, as a release attaches it", () => {
    const node = node20();
    test.runIf(node)("runs on Node.js 20 from a folder outside the repository", async () => {
      expect(relative(join(import.meta.dirname, "../../.."), world.bundleDir)).toMatch(/^\.\./);
      expect(execFileSync(node!, ["--version"], { encoding: "utf8" })).toMatch(/^v20\./);
      const version = await world.runFile("stackgate.mjs", ["version"], { env: {}, node });
      expect(version).toMatchObject({ exitCode: 0, stdout: "0.1.0\n" });
      const result = await world.runFile(
        "stackgate.mjs",
        ["deploy", QUICK, "--action", "redeploy", "--json"],
        {
          env: { STACKGATE_URL: world.nginx.url, STACKGATE_API_KEY: world.key },
          node,
        },
      );
      expect(result.exitCode, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        outcome: "succeeded",
        stack: QUICK,
        action: "redeploy",
      });
    });
  });
});
