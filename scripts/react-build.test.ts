import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { type ReactBuild, reactBuildOf } from "./react-build.ts";
import { root } from "./stackgate.ts";

const directory = mkdtempSync(join(tmpdir(), "stackgate-react-build-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

it.each<ReactBuild>(["development", "production"])(
  "tells the installed React's %s build by its text",
  (build) => {
    const dist = join(directory, build);
    mkdirSync(join(dist, "client/_astro"), { recursive: true });
    copyFileSync(
      join(root, `node_modules/react-dom/cjs/react-dom-client.${build}.js`),
      join(dist, "client/_astro/client.js"),
    );
    expect(reactBuildOf(dist)).toBe(build);
  },
);

it("builds the dashboard with React's production build when the caller's NODE_ENV is development", async () => {
  const dist = join(directory, "dashboard");
  await promisify(execFile)(
    process.execPath,
    [join(root, "node_modules/astro/bin/astro.mjs"), "build", "--root", join(root, "apps/frontend")],
    {
      env: { ...process.env, NODE_ENV: "development", STACKGATE_FRONTEND_DIST: dist },
      maxBuffer: 16 * 2 ** 20,
    },
  );
  expect(reactBuildOf(dist)).toBe("production");
}, 180_000);
