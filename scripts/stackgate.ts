import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type ProcessSpec, runStep } from "./processes.ts";

export const root = join(import.meta.dirname, "..");
const bundleEntries = {
  backend: join(root, "dist/bundle/backend/main.mjs"),
  gateway: join(root, "dist/bundle/gateway/main.mjs"),
  /** The whole service in one process (apps/gateway/src/one-process.ts), beside the backend's build. */
  one: join(root, "dist/bundle/backend/stackgate.mjs"),
};
/**
 * The dashboard's server as `npm start` runs it: a build of its own with every dependency inside (as
 * in the container image), not `apps/frontend/dist`, whose server imports React, Astro's runtime,
 * oRPC and zod from node_modules (hundreds of files resolved and CommonJS modules translated at each
 * start). Self-contained, it starts on 120–180 ms of CPU instead of 200–260 ms (bench/RESULTS.md).
 */
const frontendDist = join(root, "dist/frontend");
const frontendEntry = join(frontendDist, "server/entry.mjs");

/** What each build is made of: a change to any of these makes it stale. */
const shared = ["packages/contract/src", "package-lock.json"];
const bundleSources = ["apps/backend/src", "apps/gateway/src", "scripts/bundle.ts", ...shared];
const frontendSources = [
  "apps/frontend/src",
  "apps/frontend/public",
  "apps/frontend/astro.config.mjs",
  "apps/frontend/no-icu-for-astro.mjs",
  "apps/frontend/package.json",
  ...shared,
];

function newestChangeMs(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  const entries = readdirSync(path, { recursive: true, encoding: "utf8" });
  return Math.max(stat.mtimeMs, ...entries.map((entry) => statSync(join(path, entry)).mtimeMs));
}

/** True when an entry is missing or one of the sources (paths from the root) changed after it was built. */
function isStale(entries: string[], sources: string[]): boolean {
  if (!entries.every((entry) => existsSync(entry))) return true;
  const built = Math.min(...entries.map((entry) => statSync(entry).mtimeMs));
  return sources
    .map((source) => join(root, source))
    .some((source) => existsSync(source) && newestChangeMs(source) > built);
}

/**
 * Builds what the processes run when missing or older than its sources: the dashboard's
 * self-contained server, and the single-file builds of the gateway and the backend. The services run
 * those builds: they start in a fraction of the time and memory the sources take (no type stripping
 * of hundreds of files, no resolution of thousands of modules).
 */
export async function buildWhatIsMissing() {
  if (isStale([frontendEntry], frontendSources)) {
    await runStep(
      "Building the dashboard (missing, or its sources changed)…",
      process.execPath,
      [join(root, "node_modules/astro/bin/astro.mjs"), "build", "--root", join(root, "apps/frontend")],
      { env: { STACKGATE_FRONTEND_SELF_CONTAINED: "1", STACKGATE_FRONTEND_DIST: frontendDist } },
    );
  }
  if (isStale(Object.values(bundleEntries), bundleSources)) {
    await runStep("Bundling the gateway and the backend (their sources changed)…", process.execPath, [
      join(root, "scripts/bundle.ts"),
    ]);
  }
}

/**
 * Gateway and dashboard: a young generation of at most 3 × 1 MiB instead of V8's 3 × 16 MiB (their
 * requests leave little garbage; smaller peaks with no throughput change measurable on two busy cores,
 * bench/RESULTS.md, issue 13).
 */
const v8Flags = ["--max-semi-space-size=1"];

/**
 * The backend (bench/footprint.ts, bench/RESULTS.md "Footprint", issue 13):
 * - 8 MiB semi-spaces: a 200-stack listing's parsed upstream answer and its 60 KB reply die young
 *   instead of outliving 1 MiB scavenges (scavenges over the bursts 422 → 61, backend CPU per listing
 *   2.2–2.3 → 1.7–2.1 ms); V8's default 16 MiB made the burst peak 194–195 MiB;
 * - the old generation grown by 25 % after each mark-compact instead of V8's up-to-×4 heuristic: the
 *   first mark-compact in the bursts left 34 MB live and let it reach 93 MB before the next; with this
 *   it collects at 43–55 MB (peak during 5 × 200 deploys 147–185 → 141–150 MiB, deploys/s unchanged).
 */
const backendV8Flags = ["--max-semi-space-size=8", "--heap-growing-percent=25"];

/**
 * glibc's malloc for the backend: two arenas instead of up to eight per core, and a fixed 128 KiB trim
 * threshold (set, it turns off glibc's dynamic one, which grows with the largest block freed and then
 * keeps that much free memory at the top of the heap). Native memory of closed sockets and parsed
 * answers goes back to the system: idle after real use 102.0–102.2 → 96.4–97.9 MiB RSS, the peak in
 * the bursts 142.9–144.2 → 131.4 MiB, what stays after 5,000 streams close 11.5–13.3 → 11.0–11.4 MiB
 * (bench/RESULTS.md, "Footprint").
 */
const backendMalloc = { MALLOC_ARENA_MAX: "2", MALLOC_TRIM_THRESHOLD_: "131072" };

/**
 * No optimizing compilers (Maglev, TurboFan) where the work is not JavaScript-bound: the gateway
 * moves bytes (parsing, sockets and compression are native code), and a dashboard page is rendered
 * for a person, not a pipeline. Their code pages in the Node binary stay untouched and their
 * compilation memory is never taken: gateway idle RSS 69 → 60 MiB with the same CPU per proxied
 * request (1.2 ms), dashboard 128 → 116 MiB for 21 → 25 ms of CPU per /stacks page (bench/RESULTS.md).
 * The backend keeps them: without them a 200-stack listing costs 4.4 → 7.2 ms of CPU.
 */
const baselineCompilersOnly = "--max-opt=1";

/**
 * How `npm start` and `npm run demo` run the service (`STACKGATE_PROCESSES`): `one` (the default), the
 * gateway, the backend and the dashboard's server in one Node process; `split`, each its own process,
 * as compose.yml and compose.ha.yml run them.
 */
export type Layout = "one" | "split";

/** The layout `STACKGATE_PROCESSES` asks for; one line and exit 78 for anything else. */
export function layoutOf(env: NodeJS.ProcessEnv = process.env): Layout {
  const value = env.STACKGATE_PROCESSES?.trim() || "one";
  if (value === "one" || value === "split") return value;
  console.error(
    `Stackgate cannot start: STACKGATE_PROCESSES is "${value}": set it to one (the whole service in one process) or split (gateway, backend and dashboard as processes of their own), or unset it.`,
  );
  process.exit(78);
}

const packageVersion = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string })
  .version;

/**
 * The process that runs the whole service, or (`split`) gateway, backend and frontend, wired to each
 * other from the environment.
 */
export function stackgateProcesses(
  env: NodeJS.ProcessEnv = process.env,
  layout: Layout = layoutOf(env),
): ProcessSpec[] {
  env.STACKGATE_VERSION ??= packageVersion;
  const port = env.PORT ?? "8080";
  // V8's code cache on disk: a restart compiles the builds' few megabytes of JavaScript only once.
  env.NODE_COMPILE_CACHE ??= join(root, "dist/compile-cache");
  if (layout === "one")
    return [
      {
        name: "stackgate",
        // The backend's flags (its work is the JavaScript-bound part), and its malloc settings.
        args: [...backendV8Flags, bundleEntries.one],
        env: {
          PORT: port,
          APP_URL: env.APP_URL ?? `http://localhost:${port}`,
          STACKGATE_FRONTEND_ENTRY: frontendEntry,
          ...backendMalloc,
        },
        color: 36,
      },
    ];
  const backendPort = env.BACKEND_PORT ?? "3000";
  const frontendPort = env.FRONTEND_PORT ?? "4321";
  const backendUrl = `http://127.0.0.1:${backendPort}`;
  return [
    {
      name: "backend",
      args: [...backendV8Flags, bundleEntries.backend],
      env: {
        BACKEND_PORT: backendPort,
        APP_URL: env.APP_URL ?? `http://localhost:${port}`,
        ...backendMalloc,
      },
      color: 36,
    },
    {
      name: "frontend",
      args: [...v8Flags, baselineCompilersOnly, frontendEntry],
      // React's server code picks its build at run time: the production one, as in the container,
      // whatever NODE_ENV the caller's shell has (the development one took 1.5-2 × the CPU per page,
      // bench/RESULTS.md).
      env: { HOST: "127.0.0.1", PORT: frontendPort, BACKEND_URL: backendUrl, NODE_ENV: "production" },
      color: 35,
      // The dashboard's pages need the backend; its start-up would take half the CPU from the API's.
      startWhenAnswering: backendUrl,
    },
    {
      name: "gateway",
      args: [...v8Flags, baselineCompilersOnly, bundleEntries.gateway],
      env: { PORT: port, BACKEND_URL: backendUrl, FRONTEND_URL: `http://127.0.0.1:${frontendPort}` },
      color: 33,
    },
  ];
}
