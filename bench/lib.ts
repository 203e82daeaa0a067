import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { freePort, standInTrivyPath } from "@stackgate/simulators";
import { type ReactBuild, reactBuildOf } from "../scripts/react-build.ts";

export { freePort };

export const root = join(import.meta.dirname, "..");

const children: ChildProcess[] = [];
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** With `BENCH_PROFILE_DIR` set, every process started here writes a V8 CPU profile there on exit. */
const profileDirectory = process.env.BENCH_PROFILE_DIR;

/** Stops the processes started here gracefully, so that their CPU profiles get written. */
export async function stopProcesses() {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
          child.once("exit", resolve);
          child.kill("SIGTERM");
        }),
    ),
  );
}

/** User plus system CPU time of a process so far, in milliseconds (Linux `/proc`). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/**
 * Starts a Node process of ours and waits until `readyUrl` answers. Its standard error is kept for
 * the message if it fails to start; `BENCH_STDERR=1` also passes it through (a page's server error).
 */
export async function startProcess(
  script: string,
  args: string[],
  env: Record<string, string>,
  readyUrl: string,
  nodeFlags: string[] = [],
) {
  const profiling = profileDirectory
    ? ["--cpu-prof", "--cpu-prof-interval=250", `--cpu-prof-dir=${profileDirectory}`]
    : [];
  const child = spawn(process.execPath, [...nodeFlags, ...profiling, resolve(root, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
    if (process.env.BENCH_STDERR === "1") process.stderr.write(chunk);
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${script} exited: ${stderr}`);
    try {
      await fetch(readyUrl);
      return child;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${script} did not become ready: ${stderr}`);
}

export function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function summarize(durations: number[]) {
  const sorted = [...durations].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! };
}

export const median = (values: number[]) => summarize(values).p50;

/**
 * Kept-alive connections, each dropped after 4 s idle: before the servers' own keep-alive timeout
 * (Node's 5 s) closes it, so that a request is never sent down a connection the server is closing
 * ("socket hang up" under load).
 */
const agent = new Agent({ keepAlive: true, maxSockets: 512, timeout: 4000 });

/** A plain HTTP/1.1 request over kept-alive connections; resolves with the status and the body text. */
export function request(
  url: string,
  {
    method = "GET",
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString() }),
      );
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

export const ms = (value: number) => `${value.toFixed(2)} ms`;

export function machine() {
  return `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** The machine's load average now (1, 5 and 15 minutes): every figure of a shared machine is printed beside it. */
export const loadAverage = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(", ")}`;

export const temporaryDirectory = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

export const BENCH_KOMODO_KEY = "K_benchbenchbenchbenchbenchbenchbenchbench_K";
export const BENCH_KOMODO_SECRET = "S_benchbenchbenchbenchbenchbenchbenchbench_S";
const BENCH_PASSWORD = "bench-password-123";

/**
 * How the benches run Stackgate (`BENCH_LAYOUT`): `split` (the default until issue 34, and the
 * control), backend and gateway each their own process; `one`, the whole service as one process
 * (apps/gateway/src/one-process.ts, the dashboard's self-contained build loaded into it).
 */
export const benchLayout = (): "one" | "split" => (process.env.BENCH_LAYOUT === "one" ? "one" : "split");

/**
 * `BENCH_NODE_FLAGS`: V8 flags for Stackgate's processes (not the simulator), e.g. those `npm start`
 * gives them (scripts/stackgate.ts); none by default, as this bench always ran them.
 */
const benchNodeFlags = () => process.env.BENCH_NODE_FLAGS?.split(" ").filter(Boolean) ?? [];

/**
 * The Komodo simulator, the backend and the gateway, each its own process as in production (or, with
 * `BENCH_LAYOUT=one`, the one process), with the Komodo connection saved and an API key made (named
 * `keyName`).
 */
export async function startStackgate({
  stacks,
  keyName = "bench",
  backendEnv = {},
  gatewayEnv = {},
  backendScript = "apps/backend/src/main.ts",
  gatewayScript = "apps/gateway/src/main.ts",
  layout = benchLayout(),
}: {
  stacks: number;
  keyName?: string;
  backendEnv?: Record<string, string>;
  gatewayEnv?: Record<string, string>;
  /** The backend's entry point: its TypeScript sources, or the single-file build `npm start` runs. */
  backendScript?: string;
  /** The gateway's entry point (another build of it, to compare). */
  gatewayScript?: string;
  layout?: "one" | "split";
}) {
  const [komodoPort, backendPort, gatewayPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const komodoUrl = `http://127.0.0.1:${komodoPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const dataDir = temporaryDirectory("stackgate-bench-");
  const simulator = await startBenchKomodo(komodoPort, stacks);
  if (layout === "one") {
    const stackgate = await startProcess(
      "apps/gateway/src/one-process.ts",
      [],
      {
        PORT: String(gatewayPort),
        GATEWAY_HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        APP_URL: gatewayUrl,
        SEED_ADMIN_PASSWORD: BENCH_PASSWORD,
        LOG_LEVEL: "warn",
        NODE_ENV: "test",
        STACKGATE_FRONTEND_ENTRY: join(root, "dist/frontend/server/entry.mjs"),
        ...backendEnv,
        ...gatewayEnv,
      },
      `${gatewayUrl}/health`,
      benchNodeFlags(),
    );
    const cookie = await signInAsBenchAdmin(gatewayUrl);
    const apiKey = await connectKomodoAndCreateKey({ gatewayUrl, cookie, komodoUrl, keyName });
    const processes: Record<string, ChildProcess> = { simulator, stackgate };
    return { komodoUrl, gatewayUrl, backendUrl: gatewayUrl, dataDir, apiKey, processes };
  }
  const backend = await startProcess(
    backendScript,
    [],
    {
      BACKEND_PORT: String(backendPort),
      DATA_DIR: dataDir,
      APP_URL: gatewayUrl,
      SEED_ADMIN_PASSWORD: BENCH_PASSWORD,
      LOG_LEVEL: "warn",
      NODE_ENV: "test",
      ...backendEnv,
    },
    `http://127.0.0.1:${backendPort}/doc`,
    benchNodeFlags(),
  );
  const gateway = await startProcess(
    gatewayScript,
    [],
    {
      PORT: String(gatewayPort),
      BACKEND_URL: `http://127.0.0.1:${backendPort}`,
      FRONTEND_URL: "http://127.0.0.1:9",
      ...gatewayEnv,
    },
    `${gatewayUrl}/health`,
    benchNodeFlags(),
  );

  const cookie = await signInAsBenchAdmin(gatewayUrl);
  const apiKey = await connectKomodoAndCreateKey({ gatewayUrl, cookie, komodoUrl, keyName });
  const backendUrl = `http://127.0.0.1:${backendPort}`;
  const processes: Record<string, ChildProcess> = { simulator, backend, gateway };
  return { komodoUrl, gatewayUrl, backendUrl, dataDir, apiKey, processes };
}

/** The Komodo simulator as its own process, with the bench's key and secret and instant updates. */
export function startBenchKomodo(port: number, stacks: number) {
  return startProcess(
    "packages/simulators/src/komodo/cli.ts",
    [
      "--port",
      String(port),
      "--stacks",
      String(stacks),
      "--update-delay-ms",
      "0",
      "--key",
      BENCH_KOMODO_KEY,
      "--secret",
      BENCH_KOMODO_SECRET,
    ],
    {},
    `http://127.0.0.1:${port}/version`,
  );
}

/** Signs in the admin every bench seeds (SEED_ADMIN_PASSWORD=BENCH_PASSWORD); returns the cookie header. */
export async function signInAsBenchAdmin(gatewayUrl: string, password = BENCH_PASSWORD): Promise<string> {
  const answer = await fetch(`${gatewayUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: gatewayUrl },
    body: JSON.stringify({ email: "admin@stackgate.local", password }),
  });
  if (answer.status !== 200) throw new Error(`sign-in answered ${answer.status}`);
  return answer.headers
    .getSetCookie()
    .map((value) => value.split(";")[0])
    .join("; ");
}

/** Saves the bench's simulated Komodo as the connection and creates an API key; returns the key. */
export async function connectKomodoAndCreateKey({
  gatewayUrl,
  cookie,
  komodoUrl,
  keyName,
}: {
  gatewayUrl: string;
  cookie: string;
  komodoUrl: string;
  keyName: string;
}): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(gatewayUrl + path, {
      method: "POST",
      headers: { "content-type": "application/json", origin: gatewayUrl, cookie },
      body: JSON.stringify(body),
    }).then((response) => response.json());
  await post("/api/v0/deploy/credentials", {
    name: "bench",
    url: komodoUrl,
    key: BENCH_KOMODO_KEY,
    secret: BENCH_KOMODO_SECRET,
  });
  return ((await post("/api/v0/apikeys", { name: keyName })) as { key: string }).key;
}

/** The Chromium the browser benches drive; without one, the bench says so and ends. */
export function chromiumOrExit(): string {
  const chromiumPath = process.env.CHROME_PATH ?? "/usr/bin/chromium";
  if (!existsSync(chromiumPath)) {
    console.log(`SKIPPED: no Chromium at ${chromiumPath} (set CHROME_PATH)`);
    process.exit(0);
  }
  return chromiumPath;
}

/** Builds the dashboard into a folder of the bench's own, so no other build can replace it mid-run. */
export function buildFrontendInto(name: string): string {
  const dist = join(root, "node_modules/.cache", name);
  const build = spawnSync(
    process.execPath,
    [join(root, "node_modules/astro/bin/astro.mjs"), "build", "--root", join(root, "apps/frontend")],
    {
      env: { ...process.env, STACKGATE_FRONTEND_DIST: dist, ASTRO_TELEMETRY_DISABLED: "1" },
      stdio: "ignore",
    },
  );
  if (build.status !== 0) throw new Error("building the frontend failed (run astro build to see why)");
  return dist;
}

/**
 * The dashboard's server built in `dist`, on `port`. It renders with React's production build, as in
 * the container, whatever NODE_ENV the bench has (React's server code picks its build at run time).
 */
export async function startBuiltFrontend(
  dist: string,
  port: number,
  backendUrl: string,
  env: Record<string, string> = {},
): Promise<ReactBuild> {
  await startProcess(
    join(dist, "server/entry.mjs").slice(root.length + 1),
    [],
    { HOST: "127.0.0.1", PORT: String(port), BACKEND_URL: backendUrl, NODE_ENV: "production", ...env },
    `http://127.0.0.1:${port}/favicon.svg`,
  );
  return reactBuildOf(dist);
}

/** The soft limit on open file descriptors of this process (and of the processes it starts). */
export function openFileLimit(): number {
  const line = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((each) => each.startsWith("Max open files"));
  return Number(line?.split(/\s+/)[3] ?? Number.NaN);
}

/**
 * The dashboard as the browser benches measure it: Stackgate in front of the Komodo simulator's
 * `stacks` with the stand-in trivy (scans finish, as in the demo), the built frontend behind the
 * gateway with the demo banner, and the admin's session cookie. Returns once the image scans that the
 * first listing queued have ended: while they run the pages poll, and a big install is settled most
 * of the time.
 */
export async function startDashboardBench(stacks: number) {
  const dist = buildFrontendInto("bench-lighthouse-dist");
  const frontendPort = await freePort();
  const frontendUrl = `http://127.0.0.1:${frontendPort}`;
  const stackgate = await startStackgate({
    stacks,
    gatewayEnv: { FRONTEND_URL: frontendUrl },
    backendEnv: { TRIVY_BIN: standInTrivyPath },
  });
  const reactBuild = await startBuiltFrontend(dist, frontendPort, stackgate.gatewayUrl, {
    STACKGATE_DEMO: "1",
  });
  const base = stackgate.gatewayUrl;
  const asPipeline = { headers: { "x-api-key": stackgate.apiKey } };
  const cookie = await signInAsBenchAdmin(base);
  const listing = (await (await fetch(`${base}/api/v0/stacks`, asPipeline)).json()) as {
    stacks: { name: string }[];
  };
  const deadline = Date.now() + 180_000;
  for (;;) {
    const { images } = (await (await fetch(`${base}/api/v0/security/images`, asPipeline)).json()) as {
      images: { status: string }[];
    };
    if (!images.some((image) => image.status === "queued" || image.status === "scanning")) break;
    if (Date.now() > deadline) throw new Error("the image scans did not end within 3 minutes");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return { base, cookie, stackNames: listing.stacks.map((stack) => stack.name), reactBuild };
}
