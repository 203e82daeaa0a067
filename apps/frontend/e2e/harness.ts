/**
 * Starts the whole Stackgate service (backend, frontend, gateway) on free ports with a fresh data
 * directory, for browser tests. The frontend must be built first (`astro build`); the backend and
 * gateway run from source. By default the three run as the one process `npm start` runs
 * (apps/gateway/src/one-process.ts) with that build as its dashboard; `backend`, `frontend` and
 * `gateway` are then that one process. With the layout `split` (`STACKGATE_E2E_PROCESSES=split`,
 * or the option) they are three child processes, as compose.yml runs them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { freePort } from "@stackgate/simulators";

export const repoRoot = resolve(import.meta.dirname, "../../..");
const frontendEntry = join(
  process.env.STACKGATE_FRONTEND_DIST ?? join(repoRoot, "apps/frontend/dist"),
  "server/entry.mjs",
);

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const LOG_TAIL_CHARS = 8_000;

export type ServiceName = "backend" | "frontend" | "gateway";

export interface Admin {
  email: string;
  password: string;
  name: string;
}

export interface RunningService {
  name: ServiceName;
  url: string;
  /** The last few kilobytes of what the process printed (stdout and stderr together). */
  output(): string;
  /** Stops the process and its whole process group. */
  stop(): Promise<void>;
}

export interface Stackgate {
  /** The gateway origin: the only address the browser uses (also the backend's APP_URL). */
  baseUrl: string;
  backend: RunningService;
  frontend: RunningService;
  gateway: RunningService;
  dataDir: string;
  admin: Admin;
  /** Stops the three processes and deletes the data directory. */
  stop(): Promise<void>;
}

export interface StartStackgateOptions {
  admin?: Partial<Admin>;
  /** Extra environment per service, e.g. `{ frontend: { STACKGATE_DEMO: "1" } }`. */
  env?: Partial<Record<ServiceName, Record<string, string>>>;
  /** The gateway's port, when a test must know the public origin before the start (an OpenID Provider's callback). */
  gatewayPort?: number;
  /** The one process (`one`, the default, as `npm start`) or three (`split`); `STACKGATE_E2E_PROCESSES` sets the default. */
  layout?: "one" | "split";
}

export async function startStackgate(options: StartStackgateOptions = {}): Promise<Stackgate> {
  assertFrontendBuilt();
  const admin: Admin = {
    email: "admin@stackgate.test",
    password: `pw-${randomBytes(9).toString("base64url")}`,
    name: "Ada Admin",
    ...options.admin,
  };
  const dataDir = await mkdtemp(join(tmpdir(), "stackgate-e2e-"));
  const [backendPort, frontendPort, gatewayPort] = await Promise.all([
    freePort(),
    freePort(),
    options.gatewayPort ?? freePort(),
  ]);
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
  const backendUrl = `http://127.0.0.1:${backendPort}`;
  const frontendUrl = `http://127.0.0.1:${frontendPort}`;

  const started: RunningService[] = [];
  // What the backend is told in either layout: its data, its public origin and its first admin.
  const appEnv = {
    DATA_DIR: dataDir,
    APP_URL: baseUrl,
    BETTER_AUTH_SECRET: randomBytes(32).toString("hex"),
    SEED_ADMIN_EMAIL: admin.email,
    SEED_ADMIN_PASSWORD: admin.password,
    SEED_ADMIN_NAME: admin.name,
  };
  const layout = options.layout ?? process.env.STACKGATE_E2E_PROCESSES ?? "one";
  try {
    let services: [RunningService, RunningService, RunningService];
    if (layout === "one") {
      const one = await startService({
        name: "gateway",
        url: baseUrl,
        args: [join(repoRoot, "apps/gateway/src/one-process.ts")],
        env: {
          ...options.env?.backend,
          ...options.env?.frontend,
          ...options.env?.gateway,
          PORT: String(gatewayPort),
          GATEWAY_HOST: "127.0.0.1",
          ...appEnv,
          LOG_LEVEL: options.env?.backend?.LOG_LEVEL ?? "warn",
          STACKGATE_FRONTEND_ENTRY: frontendEntry,
          // As in the container: React's production build for the pages.
          NODE_ENV: "production",
        },
        readyPath: "/api/auth/get-session",
        onStarted: (service) => started.push(service),
      });
      services = [one, one, one];
    } else {
      services = (await Promise.all([
        startService({
          name: "backend",
          url: backendUrl,
          args: [join(repoRoot, "apps/backend/src/main.ts")],
          env: {
            BACKEND_HOST: "127.0.0.1",
            BACKEND_PORT: String(backendPort),
            ...appEnv,
            LOG_LEVEL: "warn",
            ...options.env?.backend,
          },
          readyPath: "/api/auth/get-session",
          onStarted: (service) => started.push(service),
        }),
        startFrontend({
          port: frontendPort,
          backendUrl,
          env: options.env?.frontend,
          onStarted: (s) => started.push(s),
        }),
        startService({
          name: "gateway",
          url: baseUrl,
          args: [join(repoRoot, "apps/gateway/src/main.ts")],
          env: {
            PORT: String(gatewayPort),
            BACKEND_URL: backendUrl,
            FRONTEND_URL: frontendUrl,
            ...options.env?.gateway,
          },
          readyPath: "/health",
          onStarted: (service) => started.push(service),
        }),
      ])) as [RunningService, RunningService, RunningService];
    }
    const [backend, frontend, gateway] = services;
    return {
      baseUrl,
      backend,
      frontend,
      gateway,
      dataDir,
      admin,
      async stop() {
        await Promise.all([...new Set(services)].map((service) => service.stop()));
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all(started.map((service) => service.stop()));
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

export interface StartFrontendOptions {
  port?: number;
  backendUrl: string;
  env?: Record<string, string>;
  onStarted?: (service: RunningService) => void;
}

/** The built frontend alone, e.g. against a backend address where nothing listens. */
export async function startFrontend({ port, backendUrl, env, onStarted }: StartFrontendOptions) {
  assertFrontendBuilt();
  const frontendPort = port ?? (await freePort());
  return startService({
    name: "frontend",
    url: `http://127.0.0.1:${frontendPort}`,
    args: [frontendEntry],
    // React's server code picks its build at run time: the production one, as in the container.
    env: {
      HOST: "127.0.0.1",
      PORT: String(frontendPort),
      BACKEND_URL: backendUrl,
      NODE_ENV: "production",
      ...env,
    },
    // A static file: answered without the session check, so readiness never depends on the backend.
    readyPath: "/favicon.svg",
    onStarted,
  });
}

function assertFrontendBuilt() {
  if (!existsSync(frontendEntry)) {
    throw new Error(
      `No frontend build at ${frontendEntry}: run \`npx astro build --root apps/frontend\` first`,
    );
  }
}

/** Node 24 runs the TypeScript sources directly; the machine's own node may be older. */
function nodeBinary(): string {
  if (Number(process.versions.node.split(".")[0]) >= 24) return process.execPath;
  const pinned = join(repoRoot, "node_modules/node/bin/node");
  if (existsSync(pinned)) return pinned;
  throw new Error(
    `Node ${process.versions.node} cannot run the services; run the tests through npm/npx (Node 24)`,
  );
}

/** Every started process group, so a crashed test run still leaves nothing behind. */
const liveGroups = new Set<number>();
process.once("exit", () => {
  for (const pid of liveGroups) killGroup(pid, "SIGKILL");
});

function killGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

interface ServiceSpec {
  name: ServiceName;
  url: string;
  args: string[];
  env: Record<string, string>;
  readyPath: string;
  onStarted?: (service: RunningService) => void;
}

async function startService(spec: ServiceSpec): Promise<RunningService> {
  const child = spawn(nodeBinary(), spec.args, {
    cwd: repoRoot,
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1", ...spec.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, so stop() also reaches anything it spawns
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${spec.name}: could not spawn ${spec.args.join(" ")}`);
  liveGroups.add(pid);

  let tail = "";
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-LOG_TAIL_CHARS);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));

  const service: RunningService = {
    name: spec.name,
    url: spec.url,
    output: () => tail,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        killGroup(pid, "SIGTERM");
        const stoppedInTime = await Promise.race([exited.then(() => true), delay(STOP_GRACE_MS, false)]);
        if (!stoppedInTime) killGroup(pid, "SIGKILL");
        await exited;
      }
      // Children of the service (if any) share its group: make sure none outlive it.
      killGroup(pid, "SIGKILL");
      liveGroups.delete(pid);
    },
  };
  spec.onStarted?.(service);
  await waitUntilReady(spec, child, () => tail);
  return service;
}

async function waitUntilReady(spec: ServiceSpec, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  const failure = (why: string) =>
    new Error(`${spec.name} ${why}. Last output:\n${output().trim() || "(nothing)"}`);
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw failure(`exited during start-up (${child.signalCode ?? `code ${child.exitCode}`})`);
    }
    try {
      const response = await fetch(`${spec.url}${spec.readyPath}`, {
        redirect: "manual",
        signal: AbortSignal.timeout(2_000),
      });
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await delay(150);
  }
  throw failure(`did not answer ${spec.readyPath} within ${STARTUP_TIMEOUT_MS / 1000} s`);
}
