// The release as the workflow makes it: what it builds and publishes (.github/workflows/release.yml),
// and the CLI's release assets made and checked as a pipeline author would check them.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { parse } from "yaml";
import { cliAssets } from "./cli-assets.ts";

const repo = join(import.meta.dirname, "../..");
const { version } = JSON.parse(readFileSync(join(repo, "packages/cli/package.json"), "utf8"));
const scratch = mkdtempSync(join(tmpdir(), "stackgate-release-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A workflow expression as written in the file: `${{ matrix.file }}`. */
const expr = (inner: string) => `\${{ ${inner} }}`;
const workflow = parse(readFileSync(join(repo, ".github/workflows/release.yml"), "utf8"));
// biome-ignore lint/suspicious/noExplicitAny: a workflow's steps, read field by field
const steps = (job: string): any[] => workflow.jobs[job].steps;
const runs = (job: string) =>
  steps(job)
    .map((step) => String(step.run ?? ""))
    .join("\n");

test("the one-container image, the split images and the CLI's image (the GitLab template's default) are built for amd64 and arm64 and pushed as the template names it", () => {
  const images = workflow.jobs.images;
  expect(images.strategy.matrix.include).toEqual([
    { image: "stackgate", file: "Dockerfile", target: "stackgate" },
    { image: "stackgate-gateway", file: "Dockerfile", target: "gateway" },
    { image: "stackgate-backend", file: "Dockerfile", target: "backend" },
    { image: "stackgate-frontend", file: "Dockerfile", target: "frontend" },
    { image: "stackgate-cli", file: "packages/cli/Containerfile", target: "" },
  ]);
  const build = images.steps.find((step: { uses?: string }) =>
    step.uses?.startsWith("docker/build-push-action"),
  );
  expect(build.with).toMatchObject({
    file: expr("matrix.file"),
    platforms: "linux/amd64,linux/arm64",
    push: true,
  });
  const latest = String(build.with.tags)
    .trim()
    .split("\n")
    .at(-1)!
    .replace(expr("env.IMAGE_PREFIX"), "ghcr.io/stackgate")
    .replace(expr("matrix.image"), "stackgate-cli");
  expect(images.env.IMAGE_PREFIX).toContain("'ghcr.io/stackgate'");
  const template = parse(readFileSync(join(repo, "ci/gitlab/stackgate.gitlab-ci.yml"), "utf8"));
  expect(template[".stackgate-deploy"].variables.STACKGATE_CLI_IMAGE).toBe(latest);
});

test("every release gets the single file and its SHA-256, and @stackgate/cli is published on the tag", () => {
  expect(runs("version")).toContain('node scripts/release/cli-assets.ts "$GITHUB_REF_NAME"');
  expect(workflow.jobs["cli-release-assets"].permissions).toEqual({ contents: "write" });
  expect(runs("cli-release-assets")).toContain("dist/stackgate.mjs dist/stackgate.mjs.sha256");
  expect(runs("npm")).toContain("npm publish -w packages/cli");
  expect(steps("npm").find((step) => step.run?.startsWith("npm publish")).env).toEqual({
    NODE_AUTH_TOKEN: expr("secrets.NPM_TOKEN"),
  });
  for (const job of ["images", "cli-release-assets", "npm"])
    expect(workflow.jobs[job].needs, job).toEqual(["test", "version"]);
  expect(workflow.on).toEqual({ push: { tags: ["v*"] } });
});

test("the assets: a file that checks with sha256sum -c and says its version; another tag is refused", () => {
  const out = join(scratch, "dist");
  const { files } = cliAssets(`v${version}`, out);
  expect(files).toEqual([join(out, "stackgate.mjs"), join(out, "stackgate.mjs.sha256")]);
  expect(execFileSync("sha256sum", ["-c", "stackgate.mjs.sha256"], { cwd: out, encoding: "utf8" })).toBe(
    "stackgate.mjs: OK\n",
  );
  expect(execFileSync(process.execPath, [join(out, "stackgate.mjs"), "version"], { encoding: "utf8" })).toBe(
    `${version}\n`,
  );
  expect(() => cliAssets("v99.0.0", join(scratch, "other"))).toThrow(
    `The tag v99.0.0 is not the CLI's version (packages/cli/package.json: ${version})`,
  );
});
