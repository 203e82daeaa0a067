// The CLI as it ships: the committed bundle is exactly what the sources build (the GitHub Action runs
// the committed file), and the packed tarball runs with `npx`, offline, with nothing else installed.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, test } from "vitest";
import { parse } from "yaml";
import { bundleCli } from "./bundle.ts";

const run = promisify(execFile);
const packageDir = join(import.meta.dirname, "..");
const scratch = mkdtempSync(join(tmpdir(), "stackgate-cli-package-"));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("the committed bundle is the one the sources build", async () => {
  const built = join(scratch, "built");
  await bundleCli(built);
  for (const file of ["stackgate.mjs", "action.mjs"])
    expect(
      readFileSync(join(packageDir, "bundle", file), "utf8") === readFileSync(join(built, file), "utf8"),
      `packages/cli/bundle/${file} is stale: run \`npm run build -w packages/cli\` and commit it`,
    ).toBe(true);
});

test("the packed tarball runs with npx, offline", async () => {
  await run("npm", ["pack", "--ignore-scripts", "--pack-destination", scratch], { cwd: packageDir });
  const tarball = join(scratch, "stackgate-cli-0.1.0.tgz");
  const { stdout: listing } = await run("tar", ["tzf", tarball]);
  expect(listing.trim().split("\n").sort()).toEqual([
    "package/README.md",
    "package/bundle/stackgate.mjs",
    "package/package.json",
  ]);
  // Ready for `npm publish` and `npx @stackgate/cli deploy web`.
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  expect(manifest).toMatchObject({
    name: "@stackgate/cli",
    bin: { stackgate: "bundle/stackgate.mjs" },
    engines: { node: ">=20" },
    publishConfig: { access: "public" },
  });
  expect(manifest.private).toBeUndefined();

  const npx = (args: string[]) =>
    run(
      "npx",
      [
        "--yes",
        "--offline",
        "--cache",
        join(scratch, "npm-cache"),
        "--package",
        tarball,
        "stackgate",
        ...args,
      ],
      {
        cwd: scratch,
        env: { PATH: process.env.PATH ?? "", HOME: scratch },
      },
    );
  const { stdout } = await npx(["--help"]);
  expect(stdout).toContain(
    "stackgate deploy <stack> [--action pull-redeploy] [--timeout 15m] [--[no-]wait-stable] [--quiet]",
  );
  expect((await npx(["deploy", "--help"])).stdout).toContain("Exit codes:");
  for (const asked of ["--version", "-V", "version"])
    expect((await npx([asked])).stdout.trim()).toBe("0.1.0");
  expect(stdout).toContain("stackgate version");
  // As `npx @stackgate/cli …` runs it: the package's one bin, whatever its name (`./` makes it a package spec).
  const direct = await run(
    "npx",
    ["--yes", "--offline", "--cache", join(scratch, "npm-cache"), "./stackgate-cli-0.1.0.tgz", "--version"],
    { cwd: scratch, env: { PATH: process.env.PATH ?? "", HOME: scratch } },
  );
  expect(direct.stdout.trim()).toBe("0.1.0");
  // Without configuration: a usage error that says what to set.
  const failure = await npx(["stacks"]).catch((error) => error);
  expect(failure.code).toBe(2);
  expect(failure.stderr).toContain("set STACKGATE_URL or pass --url");
}, 90_000);

test("action.yml runs the committed entry point on node24 with the documented inputs and outputs", () => {
  const repo = join(packageDir, "../..");
  const action = parse(readFileSync(join(repo, "action.yml"), "utf8"));
  expect(action.runs).toEqual({ using: "node24", main: "packages/cli/bundle/action.mjs" });
  expect(existsSync(join(repo, action.runs.main))).toBe(true);
  expect(Object.keys(action.inputs)).toEqual([
    "stack",
    "action",
    "url",
    "api-key",
    "timeout",
    "fail-on",
    "wait-stable",
    "settle-seconds",
  ]);
  expect(action.inputs.stack.required).toBe(true);
  expect(Object.keys(action.outputs)).toEqual(["outcome", "run-id", "success", "message"]);
  // The entry point reads each input the way the runner passes it.
  const entry = readFileSync(join(repo, action.runs.main), "utf8");
  for (const name of Object.keys(action.inputs)) expect(entry).toContain(`input("${name}")`);
});
