import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromiumPath } from "./chromium.ts";
import { runStep } from "./processes.ts";
import { reactBuildOf } from "./react-build.ts";
import { root } from "./stackgate.ts";

const chromium = chromiumPath();

if (!existsSync(chromium) && process.env.CI === "true") {
  console.error(
    `No Chromium at ${chromium}: CI never skips the browser tests (apt-get install -y chromium-headless-shell, or set CHROME_PATH).`,
  );
  process.exit(1);
}
if (!existsSync(chromium)) {
  const line = "!".repeat(78);
  console.warn(
    [
      line,
      `!! BROWSER TESTS SKIPPED: no Chromium at ${chromium}`,
      "!! Install it (apt-get install -y chromium-headless-shell) or set CHROME_PATH. CI always has one.",
      line,
    ].join("\n"),
  );
  process.exit(0);
}

await runStep("Building the dashboard for the browser tests…", process.execPath, [
  join(root, "node_modules/astro/bin/astro.mjs"),
  "build",
  "--root",
  join(root, "apps/frontend"),
]);
const dist = process.env.STACKGATE_FRONTEND_DIST ?? join(root, "apps/frontend/dist");
if (reactBuildOf(dist) !== "production") {
  console.error(`The dashboard built in ${dist} gives the browser React's development build.`);
  process.exit(1);
}
await runStep(`Running the browser tests in ${chromium}`, process.execPath, [
  join(root, "node_modules/vitest/vitest.mjs"),
  "run",
  "--project",
  "e2e",
]);
