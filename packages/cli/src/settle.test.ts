// What went out and whether it stayed up (issue 31), as a pipeline sees it: the built CLI and the
// GitHub Action's entry point, run as child processes through Debian's nginx (5 s read timeout) and
// the real gateway to the real backend and the Komodo simulator, print each Komodo stage with its
// output as it comes (once, across cut streams and `wait`), and follow a redeploy through its settle
// window (3 s here) to `stable`, or to `unstable` with the reason and exit 1.
import { describe, expect, test } from "vitest";
import { requireNginx } from "../../../apps/backend/src/testing/nginx.ts";
import { type CliWorld, runIdIn, UUID, useCliWorld } from "./testing/cli-world.ts";

const HEALTHY = "web";
/** Its first service restarts in a loop once deployed (every 2 s). */
const LOOPING = "worker";
const BROKEN = "broken-api";
const SLOW = "slow-web";
const KOMODO_REASON = "pull access denied for ghcr.io/acme/broken-api, repository does not exist";
const CI = { CI: "true" };

/** The stages a run printed, as `stage <name> (ok|failed)` lines say them, in order. */
const printedStages = (stderr: string) =>
  [...stderr.matchAll(/^(?:\[\d+:\d\d\] )?stage (.+) \((ok|failed)\)$/gm)].map(([, name, result]) => ({
    stage: name,
    success: result === "ok",
  }));

describe.runIf(requireNginx())("each stage as it comes, and whether the deploy stayed up", () => {
  const world = useCliWorld({
    stacks: [
      { name: HEALTHY, faults: { updateDelayMs: 200 } },
      { name: LOOPING, faults: { updateDelayMs: 200, afterDeploy: "crash-loop" } },
      { name: BROKEN, faults: { failWith: KOMODO_REASON } },
      { name: SLOW, faults: { updateDelayMs: 2_500 } },
    ],
    backendEnv: { SETTLE_SECONDS: "3" },
  });
  const run = (...args: Parameters<CliWorld["run"]>) => world.run(...args);
  /** The run's stages as Stackgate keeps them, read by the admin. */
  const stagesOf = async (runId: string) =>
    (
      await world.app.request(`/api/v0/deploy/runs/${runId}/logs`, { headers: { cookie: world.cookie } })
    ).json.stages.map(({ stage, success }: { stage: string; success: boolean }) => ({ stage, success }));

  describe("stages", () => {
    test("each stage is printed once, in order, with its command and output; the outcome after them", async () => {
      const result = await run(["deploy", HEALTHY, "--action", "pull-redeploy", "--no-wait-stable"]);
      expect(result.exitCode, result.stderr).toBe(0);
      const runId = runIdIn(result.stdout);
      const stages = await stagesOf(runId);
      expect(stages.map((stage: { stage: string }) => stage.stage)).toEqual([
        "Compose Pull",
        "Compose Down",
        "Compose Pull",
        "Compose Up",
      ]);
      expect(printedStages(result.stderr)).toEqual(stages);
      // In the order they came: a step's stages before the next step.
      expect(result.stderr.indexOf("stage Compose Pull")).toBeLessThan(
        result.stderr.indexOf("step: taking the stack down"),
      );
      // Its name, its command, then its output (compose writes its progress to stderr), indented.
      expect(result.stderr).toMatch(
        new RegExp(
          `^\\[\\d:\\d\\d\\] stage Compose Up \\(ok\\)\\n  \\$ cd /etc/komodo/stacks/${HEALTHY} && docker compose -p ${HEALTHY} -f compose.yaml up -d\\n {4} Container ${HEALTHY}-\\S+-1  Recreate$`,
          "m",
        ),
      );
      // Without the CI, no wait for the settle window; it says where to follow it.
      expect(result.stderr).toContain(`Stackgate watches whether it stays up until 20`);
      expect(result.stderr).toContain(`: stackgate wait ${runId} --wait-stable\n`);
    });

    test("--quiet prints each stage's name and result only", async () => {
      const result = await run(["deploy", HEALTHY, "--action", "pull", "--quiet"]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(printedStages(result.stderr)).toEqual([{ stage: "Compose Pull", success: true }]);
      expect(result.stderr).not.toContain("docker compose");
      expect(result.stderr).not.toMatch(/^ {4}\S/m);
    });

    test("a failed deploy prints the failed stage's output, and --json carries it", async () => {
      const result = await run(["deploy", BROKEN, "--action", "redeploy", "--json"]);
      expect(result.exitCode).toBe(1);
      expect(printedStages(result.stderr).at(-1)).toEqual({ stage: "Compose Up", success: false });
      expect(result.stderr).toMatch(new RegExp(`^ {4}${KOMODO_REASON}$`, "m"));
      const document = JSON.parse(result.stdout);
      expect(document).toMatchObject({
        outcome: "failed",
        failedStage: { stage: "Compose Up", success: false, stderr: KOMODO_REASON },
        settle: { state: "skipped", reason: "the deploy failed" },
      });
    });

    test("streams cut twice mid-run (nginx reloaded): every stage still printed once, in order", async () => {
      const reloads: Promise<void>[] = [];
      const result = await run(["deploy", SLOW, "--action", "pull-redeploy"], {
        onStderr: (stderr) => {
          const printed = printedStages(stderr).length;
          if (reloads.length < printed && reloads.length < 2) reloads.push(world.nginx.reload());
        },
      });
      await Promise.all(reloads);
      expect(reloads).toHaveLength(2);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr.match(/The event stream was interrupted/g)?.length).toBeGreaterThanOrEqual(1);
      const runId = runIdIn(result.stdout);
      expect(printedStages(result.stderr)).toEqual(await stagesOf(runId));
    });

    test("wait prints the stages of the run from its log, then its outcome", async () => {
      const runId = (await run(["deploy", SLOW, "--action", "redeploy", "--detach"])).stdout.trim();
      // Joins while the run goes: the stages before it came are read from the log.
      await expect.poll(async () => (await stagesOf(runId)).length, { timeout: 15_000 }).toBeGreaterThan(0);
      const followed = await run(["wait", runId, "--no-wait-stable"]);
      expect(followed.exitCode, followed.stderr).toBe(0);
      const stages = await stagesOf(runId);
      expect(stages.map((stage: { stage: string }) => stage.stage)).toEqual([
        "Compose Down",
        "Compose Pull",
        "Compose Up",
      ]);
      expect(printedStages(followed.stderr)).toEqual(stages);
      // A finished run: its stages at once.
      const again = await run(["wait", runId, "--no-wait-stable", "--json"]);
      expect(printedStages(again.stderr)).toEqual(stages);
      expect(JSON.parse(again.stdout)).toMatchObject({ outcome: "succeeded", runId });
    });
  });

  describe("--wait-stable", () => {
    test("in CI a redeploy is followed until it settled: stable exits 0", async () => {
      const result = await run(["deploy", HEALTHY, "--action", "redeploy"], { env: CI });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toMatch(
        /^\[\d:\d\d\] deployed; watching whether it stays up until \d\d:\d\d:\d\d UTC$/m,
      );
      // Every stage before the watch.
      expect(result.stderr.lastIndexOf("stage Compose Up")).toBeLessThan(result.stderr.indexOf("watching"));
      expect(result.stdout).toMatch(/^It stayed up: stable\.$/m);
    });

    test("a service restarting in a loop: exit 1 with the reason (and the JSON says unstable)", async () => {
      const started = Date.now();
      const result = await run(["deploy", LOOPING, "--action", "redeploy"], { env: CI });
      expect(result.exitCode, result.stderr).toBe(1);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(result.stderr).toMatch(
        new RegExp(
          `^Unstable after \\d:\\d\\d: ${LOOPING} · redeploy \\(run ${UUID}\\)\\nDeployed, then unstable: ${LOOPING} restarted \\d+ times?$`,
          "m",
        ),
      );
      // A re-run of the job attaches to that run: unstable again, saying how to deploy again.
      const job = {
        ...CI,
        GITHUB_ACTIONS: "true",
        GITHUB_REPOSITORY: "acme/shop",
        GITHUB_RUN_ID: "31",
        GITHUB_JOB: "deploy",
      };
      const first = await run(["deploy", LOOPING, "--action", "redeploy"], { env: job });
      const rerun = await run(["deploy", LOOPING, "--action", "redeploy"], { env: job });
      expect([first.exitCode, rerun.exitCode]).toEqual([1, 1]);
      expect(runIdIn(rerun.stderr)).toBe(runIdIn(first.stderr));
      expect(rerun.stderr).toContain("--new-run deploys again");
      const json = await run([
        "deploy",
        LOOPING,
        "--action",
        "redeploy",
        "--wait-stable",
        "--json",
        "--new-run",
      ]);
      expect(json.exitCode).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({
        outcome: "unstable",
        success: false,
        settle: { state: "unstable", reason: expect.stringMatching(/restarted/) },
      });
    });

    test("--timeout ends the wait in the window with exit 3, saying the deploy succeeded", async () => {
      const result = await run(["deploy", LOOPING, "--action", "redeploy", "--timeout", "2s", "--json"], {
        env: CI,
      });
      expect(result.exitCode, result.stderr).toBe(3);
      const document = JSON.parse(result.stdout);
      expect(document).toMatchObject({ outcome: "timeout", settle: { state: "watching" } });
      expect(document.message).toMatch(
        /^The deploy succeeded, but whether it stays up was not known within the time limit: Stackgate watches it until \S+ \(run /,
      );
    });

    test("--no-wait-stable ends when Komodo finished; wait --wait-stable follows the window later", async () => {
      const result = await run(["deploy", LOOPING, "--action", "redeploy", "--no-wait-stable"], { env: CI });
      expect(result.exitCode, result.stderr).toBe(0);
      const runId = runIdIn(result.stdout);
      const waited = await run(["wait", runId], { env: CI });
      expect(waited.exitCode, waited.stderr).toBe(1);
      expect(waited.stderr).toContain(`Deployed, then unstable: ${LOOPING} restarted`);
      // Stages once, though the run had finished before wait began.
      expect(printedStages(waited.stderr)).toEqual(await stagesOf(runId));
    });

    test("a pull is not watched: it ends at finished, in CI too; --settle-seconds 0 turns the watch off", async () => {
      const pull = await run(["deploy", LOOPING, "--action", "pull", "--json"], { env: CI });
      expect(pull.exitCode, pull.stderr).toBe(0);
      expect(JSON.parse(pull.stdout)).toMatchObject({ outcome: "succeeded", settle: { state: "skipped" } });
      expect(pull.stderr).not.toContain("watching");
      const unwatched = await run(
        ["deploy", LOOPING, "--action", "redeploy", "--settle-seconds", "0", "--json"],
        {
          env: CI,
        },
      );
      expect(unwatched.exitCode, unwatched.stderr).toBe(0);
      expect(JSON.parse(unwatched.stdout).settle).toMatchObject({ state: "skipped" });
      const bad = await run(["deploy", LOOPING, "--settle-seconds", "601"]);
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toContain(
        "--settle-seconds must be a whole number of seconds from 0 to 600 (got '601')",
      );
      const both = await run(["deploy", LOOPING, "--wait-stable", "--no-wait-stable"]);
      expect(both.exitCode).toBe(2);
    });

    test("a key that deploys one stack and reads nothing follows its run to the settle verdict", async () => {
      const key = await world.scopedKey("worker-pipeline", {
        stacks: [LOOPING],
        actions: ["redeploy"],
        read: [],
      });
      const result = await run(["deploy", LOOPING, "--action", "redeploy"], {
        env: { ...CI, STACKGATE_API_KEY: key },
      });
      expect(result.exitCode, result.stderr).toBe(1);
      expect(result.stderr).not.toMatch(/403|polling/);
      expect(printedStages(result.stderr).length).toBeGreaterThan(0);
      expect(result.stderr).toContain(`Deployed, then unstable: ${LOOPING} restarted`);
    });
  });

  test("the GitLab CI template's job fails on an unstable deploy and hands on outcome unstable", async () => {
    const job = await world.runGitlabJob({ STACKGATE_STACK: LOOPING, STACKGATE_ACTION: "redeploy" });
    expect(job.exitCode).toBe(1);
    expect(job.dotenv).toMatch(/^STACKGATE_OUTCOME=unstable\n/);
    expect(job.dotenv).toContain(`STACKGATE_MESSAGE=Deployed, then unstable: ${LOOPING} restarted`);
    const unwatched = await world.runGitlabJob({
      STACKGATE_STACK: LOOPING,
      STACKGATE_ACTION: "redeploy",
      STACKGATE_WAIT_STABLE: "false",
    });
    expect(unwatched.exitCode).toBe(0);
  });

  describe("the GitHub Action", () => {
    test("unstable: outcome unstable, exit 1, the reason in the outputs, the summary and the outcome line", async () => {
      const result = await world.runAction({ stack: LOOPING, action: "redeploy" });
      expect(result.exitCode, result.stderr).toBe(1);
      expect(result.outputs).toMatchObject({ outcome: "unstable", success: "false" });
      expect(result.outputs.message).toMatch(new RegExp(`^Deployed, then unstable: ${LOOPING} restarted`));
      expect(result.stdout).toMatch(
        new RegExp(
          `^Stackgate unstable: ${LOOPING} · redeploy \\(run ${UUID}\\): Deployed, then unstable: `,
          "m",
        ),
      );
      expect(result.summary).toContain(`### ⚠️ Stackgate: ${LOOPING} · redeploy unstable`);
      expect(result.summary).toMatch(
        new RegExp(`^\\| Stayed up \\| unstable: ${LOOPING} restarted \\d+ times? \\|$`, "m"),
      );
    });

    test("stable: outcome succeeded, and the summary says it stayed up", async () => {
      const result = await world.runAction({ stack: HEALTHY, action: "redeploy" });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.outputs.outcome).toBe("succeeded");
      expect(result.summary).toContain("| Stayed up | stable |");
    });

    test("failed: the summary holds the failed stage's output; wait-stable false and settle-seconds pass on", async () => {
      const failed = await world.runAction({ stack: BROKEN, action: "redeploy" });
      expect(failed.exitCode).toBe(1);
      expect(failed.outputs.outcome).toBe("failed");
      expect(failed.summary).toContain("<details open><summary>Failed stage: Compose Up</summary>");
      expect(failed.summary).toContain(
        `<pre>$ cd /etc/komodo/stacks/${BROKEN} &amp;&amp; docker compose -p ${BROKEN} -f compose.yaml up -d</pre>`,
      );
      expect(failed.summary).toContain(`stderr:\n\n<pre>${KOMODO_REASON}</pre>`);

      const unwatched = await world.runAction({ stack: LOOPING, action: "redeploy", "wait-stable": "false" });
      expect(unwatched.exitCode, unwatched.stderr).toBe(0);
      expect(unwatched.summary).toMatch(/^\| Stayed up \| still watched until \S+ \|$/m);
      const off = await world.runAction({ stack: LOOPING, action: "redeploy", "settle-seconds": "0" });
      expect(off.exitCode, off.stderr).toBe(0);
      expect(off.summary).toContain("| Stayed up | skipped: not watched: settleSeconds is 0 |");
      const wrong = await world.runAction({ stack: LOOPING, "wait-stable": "maybe" });
      expect(wrong.exitCode).toBe(2);
      expect(wrong.outputs.outcome).toBe("refused");
    });
  });
});
