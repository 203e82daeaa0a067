import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type ProcessSpec, runStep } from "./processes.ts";

export const root = join(import.meta.dirname, "..");
const frontendEntry = join(root, "apps/frontend/dist/server/entry.mjs");
const bundleEntries = {
  backend: join(root, "dist/bundle/backend/main.mjs"),
  gateway: join(root, "dist/bundle/gateway/main.mjs"),
};

/** What the gateway and backend bundles are made of: a change to any of these makes them stale. */
const bundleSources = [
  "apps/backend/src",
  "apps/gateway/src",
  "packages/contract/src",
  "scripts/bundle.ts",
  "package-lock.json",
].map((path) => join(root, path));

function newestChangeMs(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  const entries = readdirSync(path, { recursive: true, encoding: "utf8" });
  return Math.max(stat.mtimeMs, ...entries.map((entry) => statSync(join(path, entry)).mtimeMs));
}

function bundlesAreStale(): boolean {
  const entries = Object.values(bundleEntries);
  if (!entries.every((entry) => existsSync(entry))) return true;
  const built = Math.min(...entries.map((entry) => statSync(entry).mtimeMs));
  return bundleSources.some((source) => existsSync(source) && newestChangeMs(source) > built);
}

/**
 * Builds what the processes run: the dashboard when no build exists yet (a fresh clone), and the
 * single-file builds of the gateway and the backend when missing or older than their sources. The
 * services run those builds: they start in a fraction of the time and memory the TypeScript sources
 * take (no type stripping of hundreds of files, no resolution of thousands of modules).
 */
export async function buildWhatIsMissing() {
  if (!existsSync(frontendEntry)) {
    await runStep("Building the dashboard (first start only)…", process.execPath, [
      join(root, "node_modules/astro/bin/astro.mjs"),
      "build",
      "--root",
      join(root, "apps/frontend"),
    ]);
  }
  if (bundlesAreStale()) {
    await runStep("Bundling the gateway and the backend (their sources changed)…", process.execPath, [
      join(root, "scripts/bundle.ts"),
    ]);
  }
}

/**
 * A young generation of at most 3 × 1 MiB instead of V8's 3 × 16 MiB: the backend's peak during
 * bursts of 200 deploys fell from 240–250 MiB to 170–190 MiB with no throughput change measurable on
 * two busy cores (bench/RESULTS.md, issue 13).
 */
const v8Flags = ["--max-semi-space-size=1"];

const packageVersion = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string })
  .version;

/** Gateway, backend and frontend, wired to each other from the environment. */
export function stackgateProcesses(env: NodeJS.ProcessEnv = process.env): ProcessSpec[] {
  env.STACKGATE_VERSION ??= packageVersion;
  const port = env.PORT ?? "8080";
  const backendPort = env.BACKEND_PORT ?? "3000";
  const frontendPort = env.FRONTEND_PORT ?? "4321";
  const backendUrl = `http://127.0.0.1:${backendPort}`;
  // V8's code cache on disk: a restart compiles the builds' few megabytes of JavaScript only once.
  env.NODE_COMPILE_CACHE ??= join(root, "dist/compile-cache");
  return [
    {
      name: "backend",
      args: [...v8Flags, bundleEntries.backend],
      env: { BACKEND_PORT: backendPort, APP_URL: env.APP_URL ?? `http://localhost:${port}` },
      color: 36,
    },
    {
      name: "frontend",
      args: [...v8Flags, frontendEntry],
      env: { HOST: "127.0.0.1", PORT: frontendPort, BACKEND_URL: backendUrl },
      color: 35,
      // The dashboard's pages need the backend; its start-up would take half the CPU from the API's.
      startWhenAnswering: backendUrl,
    },
    {
      name: "gateway",
      args: [...v8Flags, bundleEntries.gateway],
      env: { PORT: port, BACKEND_URL: backendUrl, FRONTEND_URL: `http://127.0.0.1:${frontendPort}` },
      color: 33,
    },
  ];
}
