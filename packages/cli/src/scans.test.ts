// `stackgate scans` as a pipeline's gate, `stacks` and `history`, and the action's `fail-on`: the built
// files as child processes against the real backend, the Komodo simulator and the stand-in trivy.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { requireNginx } from "../../../apps/backend/src/testing/nginx.ts";
import { type CliWorld, startCliWorld } from "./testing/cli-world.ts";

const VULNERABLE_IMAGE = "ghcr.io/acme/critical-app:1.0";
const CLEAN_IMAGE = "ghcr.io/acme/clean-app:1.0";

describe.runIf(requireNginx())("scans, stacks and history", () => {
  let world: CliWorld;

  beforeAll(async () => {
    world = await startCliWorld({
      stacks: [
        { name: "vulnerable", services: [{ service: "app", image: VULNERABLE_IMAGE }] },
        { name: "tidy", services: [{ service: "app", image: CLEAN_IMAGE, updateAvailable: true }] },
      ],
    });
    // The first listing queues both images; the stand-in scans them at once.
    const statuses = async () => {
      const answer = await world.app.request("/api/v0/security/images", {
        headers: { cookie: world.cookie },
      });
      return (answer.json.images as Array<{ status: string }>).map((image) => image.status);
    };
    const deadline = Date.now() + 20_000;
    while ((await statuses()).join() !== "done,done") {
      if (Date.now() > deadline) throw new Error(`the images were not scanned: ${await statuses()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  afterAll(async () => {
    await world?.close();
  });

  test("--fail-on critical exits 1 on a stack whose image has critical findings, naming it", async () => {
    const result = await world.run(["scans", "--stack", "vulnerable", "--fail-on", "critical"]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("Gate failed: 1 image(s) have findings at or above critical.");
    expect(result.stderr).toMatch(new RegExp(`^${VULNERABLE_IMAGE}: [1-9]\\d* critical$`, "m"));
  });

  test("--fail-on high passes a stack whose images are clean", async () => {
    const result = await world.run(["scans", "--stack", "tidy", "--fail-on", "high"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("Gate passed: no image has findings at or above high.");
    expect(result.stdout).toContain(CLEAN_IMAGE);
    expect(result.stdout).not.toContain(VULNERABLE_IMAGE);
  });

  test("--json names the failing images; without --fail-on nothing fails", async () => {
    const gated = await world.run(["scans", "--fail-on", "high", "--json"]);
    expect(gated.exitCode).toBe(1);
    expect(JSON.parse(gated.stdout)).toMatchObject({ failOn: "high", failing: [VULNERABLE_IMAGE] });
    const listed = await world.run(["scans"]);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toMatch(/^IMAGE\s+STATUS\s+CRITICAL\s+HIGH\s+MEDIUM\s+LOW\s+STACKS$/m);
  });

  test("--fail-on waits for the first scan of an image never scanned, then judges it", async () => {
    const image = "ghcr.io/acme/slow-critical:2.0";
    world.komodo.addStack({ name: "fresh", services: [{ service: "app", image }] });
    const result = await world.run(["scans", "--stack", "fresh", "--fail-on", "critical"]);
    expect(result.stderr).toContain("Waiting up to 2m for the first scan of 1 image(s)");
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^${image}: [1-9]\\d* critical$`, "m"));
  });

  test("--image shows one image's findings", async () => {
    const result = await world.run(["scans", "--image", VULNERABLE_IMAGE]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^critical\s+CVE-\d{4}-\d+/m);
  });

  test("an unknown stack, an unused image, a bad level or a wait longer than the CLI can keep exits 2", async () => {
    expect((await world.run(["scans", "--stack", "nope", "--fail-on", "critical"])).exitCode).toBe(2);
    expect((await world.run(["scans", "--image", "ghcr.io/acme/unused:1"])).exitCode).toBe(2);
    const level = await world.run(["scans", "--fail-on", "medium"]);
    expect(level.exitCode).toBe(2);
    expect(level.stderr).toContain("--fail-on must be critical or high");
    const wait = await world.run(["scans", "--fail-on", "critical", "--scan-wait", "597h"]);
    expect(wait.exitCode).toBe(2);
    expect(wait.stderr).toContain("--scan-wait can be at most 596h31m");
  });

  test("stacks lists the stacks with their images; history shows a deploy", async () => {
    const stacks = await world.run(["stacks"]);
    expect(stacks.exitCode, stacks.stderr).toBe(0);
    expect(stacks.stdout).toMatch(new RegExp(`^tidy\\s+running\\s+.*${CLEAN_IMAGE} \\*$`, "m"));
    expect((await world.run(["deploy", "tidy", "--action", "pull"])).exitCode).toBe(0);
    const history = await world.run(["history", "--stack", "tidy"]);
    expect(history.exitCode, history.stderr).toBe(0);
    expect(history.stdout).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+tidy\s+pull\s+ok\s+API Key: release-pipeline/m,
    );
    expect((await world.run(["history", "--stack", "vulnerable"])).stdout).toContain(
      "No finished deploys yet.",
    );
  });

  test("the action's fail-on stops the deploy of a stack with critical findings", async () => {
    const outputFile = join(world.bundleDir, "gate-output");
    const summaryFile = join(world.bundleDir, "gate-summary");
    writeFileSync(outputFile, "");
    writeFileSync(summaryFile, "");
    const result = await world.runFile("action.mjs", [], {
      env: {
        INPUT_STACK: "vulnerable",
        INPUT_URL: world.nginx.url,
        "INPUT_API-KEY": world.key,
        "INPUT_FAIL-ON": "critical",
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summaryFile,
      },
    });
    expect(result.exitCode).toBe(1);
    const outputs = readFileSync(outputFile, "utf8");
    expect(outputs).toMatch(/^success<<(.+)\nfalse\n\1$/m);
    expect(outputs).toContain(
      `Not deployed: 1 image(s) of vulnerable have findings at or above critical: ${VULNERABLE_IMAGE}`,
    );
    expect(readFileSync(summaryFile, "utf8")).toContain(
      "### ❌ Stackgate: vulnerable not deployed: scan gate",
    );
    const history = await world.app.request("/api/v0/history?stack=vulnerable", {
      headers: { cookie: world.cookie },
    });
    expect(history.json.history).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain(world.key);
  });
});
