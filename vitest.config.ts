import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * Every Node process the tests start (the workers, and the backends, gateways and CLIs they spawn)
 * loads its modules quicker: drizzle-orm resolved without Node re-reading its package.json for each
 * file (scripts/quick-module-loading.mjs), and compiled code kept between processes in Node's compile
 * cache. Loading the backend from its sources: 2.7 s of CPU before, 1.2 s with both.
 */
function quickModuleLoading() {
  const preload = pathToFileURL(join(import.meta.dirname, "scripts/quick-module-loading.mjs")).href;
  if (!process.env.NODE_OPTIONS?.includes(preload))
    process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--import=${preload}`].filter(Boolean).join(" ");
  process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, "node_modules/.cache/node-compile-cache");
}
quickModuleLoading();

/**
 * The backend's test files that store anything: those starting a backend through the harness or
 * opening a test database. The "postgres" project runs them again on PostgreSQL.
 */
function backendTestsThatStore() {
  const root = "apps/backend/src";
  const usesDatabase =
    /startTestBackend|startConnectedBackend|startScanBench|openTestDatabase|openDatabaseOfDataDir|openCluster/;
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts"))
    .map((file) => join(root, file))
    .filter((file) => usesDatabase.test(readFileSync(file, "utf8")));
}

/**
 * How long `expect.poll` waits for what it checks (Vitest's default: 1 s). A passing poll returns as
 * soon as it matches, so only a failure waits this long; a second was too short for a scan to end
 * with three test files running at once.
 */
const PATIENT_POLL_MS = 10_000;

/**
 * A worker runs its files one after another in the same module graph instead of importing the
 * backend's afresh for each (unit and PostgreSQL: 530 s with isolation, 334 s without); each file's
 * changes to `process.env` are undone after it (scripts/restore-env.ts). Services get what they use
 * as arguments, so no other state carries over.
 */
const SHARED_MODULES = { isolate: false, setupFiles: ["scripts/restore-env.ts"] };

export default defineConfig({
  test: {
    reporters: ["default", "./scripts/summary-reporter.ts"],
    // Vitest's default is one worker less than the cores: one file at a time on CI's two cores. Most
    // files wait on child processes, sockets and timers, so several at once are much quicker there
    // (unit and PostgreSQL: 872 s one at a time; 483 and 505 s three at a time). With today's files,
    // four: 355 and 350 s against 395 s for three, at 166 % of the two cores against 152 %.
    maxWorkers: 4,
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "apps/backend/src/**/*.test.ts",
            "apps/gateway/src/**/*.test.ts",
            "packages/*/src/**/*.test.ts",
            "scripts/**/*.test.ts",
            "apps/frontend/src/**/*.test.ts",
          ],
          environment: "node",
          ...SHARED_MODULES,
          testTimeout: 30_000,
          hookTimeout: 30_000,
          expect: { poll: { timeout: PATIENT_POLL_MS } },
        },
      },
      {
        // The backend's tests again, each backend on its own database on a throw-away PostgreSQL
        // server (testing/postgres.ts): both engines pass the same tests.
        test: {
          name: "postgres",
          include: backendTestsThatStore(),
          environment: "node",
          ...SHARED_MODULES,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          expect: { poll: { timeout: PATIENT_POLL_MS } },
          globalSetup: ["apps/backend/src/testing/postgres-global-setup.ts"],
          env: { STACKGATE_TEST_ENGINE: "postgres" },
        },
      },
      {
        test: {
          name: "e2e",
          include: ["apps/frontend/e2e/**/*.e2e.ts"],
          environment: "node",
          testTimeout: 90_000,
          hookTimeout: 180_000,
          // Two files at once: one at a time left a core mostly idle while pages load and stacks
          // deploy (654 s for the suite, load average about 1); two took 500 and 468 s, three 508 s
          // (both cores busy, each file 2.7 times as long). Each file starts its own services and
          // Chromium.
          fileParallelism: true,
          maxWorkers: 2,
          // A page on a busy machine may take more than the default second to get there; a passing
          // poll returns as soon as it matches, so only a failure waits this long.
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
