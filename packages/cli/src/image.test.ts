// The CLI's container image (packages/cli/Containerfile), built with podman on the local stand-in for
// node:24-bookworm-slim (scripts/containers/base-image.sh; CONTAINERS-HERE.md says why), and run as a
// pipeline's job runs it: `stackgate deploy` from inside the container against the real backend.
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { type CliWorld, startCliWorld } from "./testing/cli-world.ts";

const run = promisify(execFile);
const BASE = "localhost/node:24-bookworm-slim";
const IMAGE = "localhost/stackgate-cli:test";
const packageDir = join(import.meta.dirname, "..");

/**
 * Runs with the container test (`npm run test:containers` sets up podman and the base image, then runs
 * this file with STACKGATE_CONTAINER_TESTS=1), so `npm test` never depends on what a machine has left over.
 */
function containerTestsRequested(): boolean {
  if (process.env.STACKGATE_CONTAINER_TESTS !== "1") return false;
  execFileSync("podman", ["image", "exists", BASE], { stdio: "ignore" });
  return true;
}

describe.runIf(containerTestsRequested())("the CLI image", () => {
  let world: CliWorld;

  beforeAll(async () => {
    // The build context holds the one file the image needs, where the Containerfile expects it.
    const context = mkdtempSync(join(tmpdir(), "stackgate-cli-image-"));
    mkdirSync(join(context, "packages/cli/bundle"), { recursive: true });
    cpSync(join(packageDir, "bundle/stackgate.mjs"), join(context, "packages/cli/bundle/stackgate.mjs"));
    await run("podman", [
      "build",
      "-q",
      "--build-arg",
      `NODE_IMAGE=${BASE}`,
      "-f",
      join(packageDir, "Containerfile"),
      "-t",
      IMAGE,
      context,
    ]);
    rmSync(context, { recursive: true, force: true });
    world = await startCliWorld({ stacks: [{ name: "web", faults: { updateDelayMs: 300 } }] });
  }, 180_000);

  afterAll(async () => {
    await world?.close();
  });

  const size = (image: string) =>
    Number(
      execFileSync("podman", ["image", "inspect", image, "--format", "{{.Size}}"], { encoding: "utf8" }),
    );

  test("adds less than 1 MB to node:24-bookworm-slim and runs as a non-root user", () => {
    expect(size(IMAGE) - size(BASE)).toBeLessThan(1_000_000);
    expect(
      execFileSync("podman", ["image", "inspect", IMAGE, "--format", "{{.Config.User}}"], {
        encoding: "utf8",
      }).trim(),
    ).toBe("node");
  });

  test("`stackgate deploy` inside the container deploys through the proxy", async () => {
    const { stdout } = await run("podman", [
      "run",
      "--rm",
      "--network",
      "host",
      "-e",
      `STACKGATE_URL=${world.nginx.url}`,
      "-e",
      `STACKGATE_API_KEY=${world.key}`,
      IMAGE,
      "stackgate",
      "deploy",
      "web",
      "--action",
      "redeploy",
      "--json",
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: "succeeded", success: true, stack: "web" });
    const history = await world.app.request("/api/v0/history?stack=web", {
      headers: { cookie: world.cookie },
    });
    expect(history.json.history).toHaveLength(1);
  }, 60_000);

  test("the image's default command prints the help; `stackgate version` the package's version", async () => {
    const { stdout } = await run("podman", ["run", "--rm", IMAGE]);
    expect(stdout).toContain("stackgate deploy <stack>");
    const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
    expect((await run("podman", ["run", "--rm", IMAGE, "stackgate", "version"])).stdout).toBe(`${version}\n`);
  });

  test("the GitLab CI template's job, run in the image as a runner runs it: a retry attaches to the first run", async () => {
    const script = parse(readFileSync(join(packageDir, "../../ci/gitlab/stackgate.gitlab-ci.yml"), "utf8"))[
      ".stackgate-deploy"
    ].script.join("\n");
    const job = async (jobId: string) => {
      const variables = {
        STACKGATE_URL: world.nginx.url,
        STACKGATE_API_KEY: world.key,
        STACKGATE_STACK: "web",
        STACKGATE_ACTION: "pull",
        STACKGATE_TIMEOUT: "1m",
        STACKGATE_FAIL_ON: "",
        CI: "true",
        GITLAB_CI: "true",
        CI_PROJECT_PATH: "acme/shop",
        CI_PIPELINE_ID: "5150",
        CI_JOB_NAME: "deploy-web",
        CI_JOB_ID: jobId,
      };
      const env = Object.entries(variables).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
      const args = ["run", "--rm", "--network", "host", "-w", "/tmp", ...env, IMAGE, "sh", "-c"];
      // The job's script ends with `exit`: the report is read after it, as a later job gets it.
      return (await run("podman", [...args, `(\n${script}\n) >&2\ncat stackgate.env`])).stdout;
    };
    const first = await job("1");
    const retry = await job("2");
    expect(first).toMatch(/^STACKGATE_OUTCOME=succeeded$/m);
    const runId = /^STACKGATE_RUN_ID=(.+)$/m.exec(first)?.[1];
    expect(retry).toContain(`STACKGATE_RUN_ID=${runId}\n`);
    const history = await world.app.request("/api/v0/history?stack=web", {
      headers: { cookie: world.cookie },
    });
    expect(history.json.history.filter((entry: { action: string }) => entry.action === "pull")).toHaveLength(
      1,
    );
  }, 60_000);
});
