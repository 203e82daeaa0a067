// The CLI as it ships: the committed bundle is exactly what the sources build (the GitHub Action runs
// the committed file), and the packed tarball runs with `npx`, offline, with nothing else installed.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, test } from "vitest";
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
  expect(listing.trim().split("\n").sort()).toEqual(["package/bundle/stackgate.mjs", "package/package.json"]);

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
  expect(stdout).toContain("stackgate deploy <stack> [--action pull-redeploy] [--timeout 15m] [--json]");
  expect((await npx(["deploy", "--help"])).stdout).toContain("Exit codes:");
  expect((await npx(["--version"])).stdout.trim()).toBe("0.1.0");
  // Without configuration: a usage error that says what to set.
  const failure = await npx(["stacks"]).catch((error) => error);
  expect(failure.code).toBe(2);
  expect(failure.stderr).toContain("set STACKGATE_URL or pass --url");
}, 90_000);
