/**
 * Issue 13's and issue 34's targets, measured on `npm start` itself (npm, its shell, the supervisor
 * and what it starts: the one process, or with `STACKGATE_PROCESSES=split` the three services)
 * against the Komodo simulator with 200 stacks and the stand-in trivy:
 *  - start-up: from spawning the supervisor (and `npm start`) to the first real API answer through
 *    the gateway (`GET /api/v0/stacks` with an API key: the key checked, Komodo asked);
 *  - idle memory per process after real use: signed in, a connection saved, 50 listings of 200
 *    stacks and 10 dashboard pages, the scans they queued finished;
 *  - the supervision's own memory (npm, sh, the supervisor);
 *  - the stack list's added p50 over the upstream's own time (and, not judged, the backend's share
 *    without the gateway, and the CPU time backend and gateway spend per listing);
 *  - 5,000 event streams: backend memory per stream, and after they close;
 *  - the backend's peak during five bursts of 200 concurrent deploys.
 * Memory is read from Linux `/proc`: RSS, PSS (each shared page divided among the processes that map
 * it) and the private pages (what the machine gets back when the process ends). RSS counts the Node
 * binary's pages in full in every one of the Node processes that share them, hence the supervision's
 * target judged on private memory.
 *
 * `FOOTPRINT_SECTIONS=starts,idle,list,bursts,streams` (a comma-separated subset) measures only
 * those, for quick comparisons; the full run (all of them, the default) is what RESULTS.md reports.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { standInTrivyPath } from "@stackgate/simulators";
import {
  BENCH_KOMODO_KEY,
  BENCH_KOMODO_SECRET,
  connectKomodoAndCreateKey,
  freePort,
  loadAverage,
  machine,
  ms,
  openFileLimit,
  request,
  root,
  signInAsBenchAdmin,
  startBenchKomodo,
  stopProcesses,
  summarize,
  temporaryDirectory,
} from "./lib.ts";

const STACKS = 200;
const LISTINGS = 50;
const PAGES = 10;
const LIST_WARM_UP = 20;
const LIST_ROUNDS = 300;
const STREAMS = 5000;
const BURSTS = 5;
const STARTS = 3;
const NEEDED_OPEN_FILES = 2 * STREAMS + 1500;
const PASSWORD = "bench-password-123";
const MiB = 1024 * 1024;

const SECTIONS = ["starts", "first", "idle", "list", "bursts", "streams"] as const;
/** What `npm start` runs here: STACKGATE_PROCESSES passes on to it (one by default). */
const layout: "one" | "split" = process.env.STACKGATE_PROCESSES === "split" ? "split" : "one";
const loadAtStart = loadAverage();
const chosenSections = (process.env.FOOTPRINT_SECTIONS ?? SECTIONS.join(","))
  .split(",")
  .map((each) => each.trim());
for (const section of chosenSections)
  if (!(SECTIONS as readonly string[]).includes(section))
    throw new Error(`FOOTPRINT_SECTIONS: unknown section "${section}" (known: ${SECTIONS.join(", ")})`);
const measures = (section: (typeof SECTIONS)[number]) => chosenSections.includes(section);

const verdict = (ok: boolean) => (ok ? "meets target" : "MISSES target");
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

// ---------------------------------------------------------------------------------------------
// Processes and their memory, from /proc

interface Memory {
  rss: number;
  /** Proportional set size: each shared page divided by the number of processes mapping it. */
  pss: number;
  /** Private_Clean + Private_Dirty: pages no other process maps. */
  private: number;
  /** VmHWM: the highest RSS since start (or since the last reset through clear_refs). */
  peak: number;
}

function memoryOf(pid: number): Memory {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const field = (text: string, name: string) =>
    Number(text.match(new RegExp(`^${name}:\\s+(\\d+)`, "m"))?.[1]) * 1024;
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return {
    rss: field(rollup, "Rss"),
    pss: field(rollup, "Pss"),
    private: field(rollup, "Private_Clean") + field(rollup, "Private_Dirty"),
    peak: field(status, "VmHWM"),
  };
}

/** CPU time (user + system) the process has used, in ms (clock ticks of 10 ms). */
function cpuMsOf(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Every process below `rootPid`, with its command line. */
function descendants(rootPid: number) {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const parent = Number(readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
        const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").trim();
        return [{ pid: Number(name), parent, args }];
      } catch {
        return [];
      }
    });
  const found: { pid: number; args: string }[] = [];
  const walk = (pid: number) => {
    for (const child of all.filter((each) => each.parent === pid)) {
      found.push(child);
      walk(child.pid);
    }
  };
  walk(rootPid);
  return found;
}

type Role = "backend" | "gateway" | "frontend" | "stackgate" | "supervisor" | "shell";

/** The processes `npm start` runs, by role (stand-in trivy runs below the backend are left out). */
function stackgateTree(rootPid: number) {
  const roles = new Map<Role, number>();
  for (const { pid, args } of descendants(rootPid)) {
    // The one process's supervisor is a shell whose arguments name the one process's build: first.
    if (/stackgate-supervisor|supervisor\.mjs/.test(args)) roles.set("supervisor", pid);
    else if (/trivy/.test(args)) continue;
    else if (/^(\/bin\/)?sh /.test(args)) roles.set("shell", pid);
    else if (/scripts\/start/.test(args)) roles.set("supervisor", pid);
    else if (/backend\/stackgate\.mjs/.test(args)) roles.set("stackgate", pid);
    else if (/entry\.mjs/.test(args)) roles.set("frontend", pid);
    else if (/backend\/(src\/)?main\.m?[jt]s/.test(args)) roles.set("backend", pid);
    else if (/gateway\/(src\/)?main\.m?[jt]s/.test(args)) roles.set("gateway", pid);
  }
  return roles;
}

// ---------------------------------------------------------------------------------------------
// Stackgate as `npm start` runs it

const komodoPort = await freePort();
const komodoUrl = `http://127.0.0.1:${komodoPort}`;
await startBenchKomodo(komodoPort, STACKS);

const [port, backendPort, frontendPort] = await Promise.all([freePort(), freePort(), freePort()]);
const gatewayUrl = `http://127.0.0.1:${port}`;
const dataDir = temporaryDirectory("stackgate-footprint-");
const stackgateEnv = {
  ...process.env,
  PORT: String(port),
  BACKEND_PORT: String(backendPort),
  FRONTEND_PORT: String(frontendPort),
  APP_URL: gatewayUrl,
  DATA_DIR: dataDir,
  SEED_ADMIN_PASSWORD: PASSWORD,
  LOG_LEVEL: "warn",
  TRIVY_BIN: standInTrivyPath,
  STANDIN_TRIVY_SCAN_MS: "20",
  SCANNER_SWEEP_DELAY_SECONDS: "3600",
  // The 5,000 streams come from one address here; bench/flood.ts covers the per-client limit.
  MAX_STREAMS_PER_CLIENT: String(2 * STREAMS),
};

interface Launched {
  child: ChildProcess;
  output: () => string;
}

/** Starts a command in its own process group (so that it can be stopped as Ctrl-C would). */
function launch(command: string, args: string[], env: NodeJS.ProcessEnv = stackgateEnv): Launched {
  const child = spawn(command, args, { cwd: root, env, detached: true, stdio: "pipe" });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk).slice(-8000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return { child, output: () => output };
}

async function stop({ child }: Launched) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid!, "SIGINT");
  await exited;
}
const running = new Set<Launched>();
process.on("exit", () => {
  for (const { child } of running) if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
});

let apiKey = "";
const withKey = () => ({ headers: { "x-api-key": apiKey } });

/** Polls `probe` every 5 ms until it says yes; the launch's output if it exits first. */
async function waitUntil(launched: Launched, probe: () => Promise<boolean>, timeoutMs = 180_000) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (launched.child.exitCode !== null) throw new Error(`npm start exited:\n${launched.output()}`);
    if (await probe().catch(() => false)) return;
    await pause(5);
  }
  throw new Error(`Stackgate did not answer in time:\n${launched.output()}`);
}

const firstRealAnswer = async () => (await request(`${gatewayUrl}/api/v0/stacks`, withKey())).status === 200;

const signIn = () => signInAsBenchAdmin(gatewayUrl, PASSWORD);

// The first start builds what is missing, applies the migrations and creates the admin: not timed.
{
  const first = launch("npm", ["start"]);
  running.add(first);
  await waitUntil(first, async () => (await request(`${gatewayUrl}/health/ready`, {})).status === 200);
  const cookie = await signIn();
  apiKey = await connectKomodoAndCreateKey({ gatewayUrl, cookie, komodoUrl, keyName: "footprint" });
  await stop(first);
  running.delete(first);
}

/** Restarts: from spawning the command to the first `GET /api/v0/stacks` answered 200. */
async function timeStarts(command: string, args: string[]) {
  const durations: number[] = [];
  for (let round = 0; round < STARTS; round++) {
    const started = performance.now();
    const launched = launch(command, args);
    running.add(launched);
    await waitUntil(launched, firstRealAnswer, 30_000);
    durations.push(performance.now() - started);
    await stop(launched);
    running.delete(launched);
  }
  return durations;
}
const supervisorStarts = measures("starts")
  ? await timeStarts(process.execPath, [join(root, "scripts/start.ts")])
  : [];
const npmStarts = measures("starts") ? await timeStarts("npm", ["start"]) : [];
/** The control: the same Node starting a server that answers every request at once, timed the same way. */
const bareServer = `require("node:http").createServer((_, res) => res.end("{}")).listen(${port}, "127.0.0.1")`;
const bareStarts = measures("starts") ? await timeStarts(process.execPath, ["-e", bareServer]) : [];

/**
 * First starts: `node scripts/start.ts` over an empty DATA_DIR each time (the builds are there), from
 * the spawn to the first API answer through the gateway (`GET /api/v0/sign-in/options`, public: no
 * key exists yet); the migrations run and the admin is created (its password hashed) on the way.
 */
async function timeFirstStarts() {
  const durations: number[] = [];
  for (let round = 0; round < STARTS; round++) {
    const env = { ...stackgateEnv, DATA_DIR: temporaryDirectory("stackgate-first-start-") };
    const started = performance.now();
    const launched = launch(process.execPath, [join(root, "scripts/start.ts")], env);
    running.add(launched);
    await waitUntil(
      launched,
      async () => (await request(`${gatewayUrl}/api/v0/sign-in/options`, {})).status === 200,
      30_000,
    );
    durations.push(performance.now() - started);
    await stop(launched);
    running.delete(launched);
  }
  return durations;
}
const firstStarts = measures("first") ? await timeFirstStarts() : [];

// The run measured from here on.
const stackgate = launch("npm", ["start"]);
running.add(stackgate);
await waitUntil(stackgate, firstRealAnswer, 30_000);
await waitUntil(stackgate, async () => (await request(`${gatewayUrl}/health/ready`, {})).status === 200);
// The dashboard's server starts once the API answers (its own process, or loaded into the one).
await waitUntil(stackgate, async () => (await request(`${gatewayUrl}/sign-in`, {})).status === 200);
const roles = stackgateTree(stackgate.child.pid!);
/** The processes serving: the one, or the three. */
const services: Role[] = layout === "one" ? ["stackgate"] : ["backend", "gateway", "frontend"];
for (const role of [...services, "supervisor"] as const)
  if (!roles.has(role)) throw new Error(`no ${role} process found under npm start`);
const pidOf = (role: Role) => roles.get(role)!;
/** The process whose memory the backend's targets judge: the backend's, or the one process. */
const servingRole: Role = layout === "one" ? "stackgate" : "backend";

/** The Node binary a process runs on, with its version. */
function nodeOf(pid: number) {
  const binary = readlinkSync(`/proc/${pid}/exe`);
  return `${binary} (${execFileSync(binary, ["--version"], { encoding: "utf8" }).trim()})`;
}
const npmNode = nodeOf(stackgate.child.pid!);
const servicesNode = nodeOf(pidOf(servingRole));

// ---------------------------------------------------------------------------------------------
// Real use, then idle

/** Until no image waits for or is in a scan. */
async function scansFinished() {
  const deadline = performance.now() + 180_000;
  while (performance.now() < deadline) {
    const { text } = await request(`${gatewayUrl}/api/v0/security/images`, withKey());
    const { images } = JSON.parse(text) as { images: { status: string }[] };
    const pending = images.filter((image) => image.status === "queued" || image.status === "scanning").length;
    if (pending === 0) return images.length;
    await pause(250);
  }
  throw new Error("the queued scans did not finish within 3 minutes");
}
let scannedImages = 0;
if (measures("idle")) {
  const cookie = await signIn();
  for (let listing = 0; listing < LISTINGS; listing++) {
    const { status } = await request(`${gatewayUrl}/api/v0/stacks`, { headers: { cookie } });
    if (status !== 200) throw new Error(`listing answered ${status}`);
  }
  for (let page = 0; page < PAGES; page++) {
    for (const path of ["/stacks", "/security"]) {
      const { status } = await request(gatewayUrl + path, { headers: { cookie } });
      if (status !== 200) throw new Error(`${path} answered ${status}`);
    }
  }
  scannedImages = await scansFinished();
  // Nothing in flight: let the processes settle (V8 shrinks its heaps a few seconds after activity).
  await pause(10_000);
}
const idle = new Map([...roles].map(([role, pid]) => [role, memoryOf(pid)]));
/** `FOOTPRINT_SMAPS=1`: where the serving process's idle memory is, by mapping (largest RSS first). */
const idleMappings = process.env.FOOTPRINT_SMAPS === "1" ? mappingsOf(pidOf(servingRole)) : [];

function mappingsOf(pid: number) {
  const byName = new Map<string, { rss: number; private: number }>();
  let name = "";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      name = header[1]!.trim() || "[anonymous]";
      continue;
    }
    const field = /^(Rss|Private_Clean|Private_Dirty):\s+(\d+) kB/.exec(line);
    if (!field) continue;
    const entry = byName.get(name) ?? { rss: 0, private: 0 };
    if (field[1] === "Rss") entry.rss += Number(field[2]) * 1024;
    else entry.private += Number(field[2]) * 1024;
    byName.set(name, entry);
  }
  return [...byName].sort(([, a], [, b]) => b.rss - a.rss).slice(0, 12);
}
const npmMemory = memoryOf(stackgate.child.pid!);
/** Everything `npm start` leaves running but npm itself (stand-in trivy runs aside): its shell, the supervisor, the service(s). */
const leftRunning = descendants(stackgate.child.pid!)
  .filter(({ args }) => !/trivy/.test(args))
  .map(({ pid }) => memoryOf(pid));

// ---------------------------------------------------------------------------------------------
// The stack list's added time

/**
 * Straight to the simulator, and through gateway and backend (or through `serviceUrl`); `acceptEncoding`
 * asks the gateway to compress (the time then ends with the compressed body received, not decompressed).
 */
async function timeListing({
  acceptEncoding,
  serviceUrl = gatewayUrl,
}: {
  acceptEncoding?: string;
  serviceUrl?: string;
} = {}) {
  const direct: number[] = [];
  const throughGateway: number[] = [];
  const listDirect = () =>
    request(`${komodoUrl}/read/ListStacks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": BENCH_KOMODO_KEY,
        "x-api-secret": BENCH_KOMODO_SECRET,
      },
      body: JSON.stringify({ limit: 0 }),
    });
  const cpuBefore = Object.fromEntries(services.map((role) => [role, cpuMsOf(pidOf(role))]));
  const listThroughGateway = () =>
    request(`${serviceUrl}/api/v0/stacks`, {
      headers: { "x-api-key": apiKey, ...(acceptEncoding ? { "accept-encoding": acceptEncoding } : {}) },
    });
  for (let round = 0; round < LIST_WARM_UP + LIST_ROUNDS; round++) {
    for (const [run, durations] of [
      [listDirect, direct],
      [listThroughGateway, throughGateway],
    ] as const) {
      const started = performance.now();
      const { status, text } = await run();
      if (!acceptEncoding || run === listDirect) JSON.parse(text);
      if (status !== 200) throw new Error(`listing failed: ${status}`);
      if (round >= LIST_WARM_UP) durations.push(performance.now() - started);
    }
  }
  const rounds = LIST_WARM_UP + LIST_ROUNDS;
  const cpuPerListing = Object.fromEntries(
    services.map((role) => [role, (cpuMsOf(pidOf(role)) - cpuBefore[role]!) / rounds]),
  );
  return { direct: summarize(direct), throughGateway: summarize(throughGateway), cpuPerListing };
}
const listing = measures("list") ? await timeListing() : undefined;
const compressedListing = measures("list")
  ? await timeListing({ acceptEncoding: "gzip, deflate, br" })
  : undefined;
// Not judged: how the added time divides between the backend and the gateway's proxying.
const backendListing =
  measures("list") && layout === "split"
    ? await timeListing({ serviceUrl: `http://127.0.0.1:${backendPort}` })
    : undefined;

// ---------------------------------------------------------------------------------------------
// Peak during deploy bursts

const stackNames = (
  JSON.parse((await request(`${gatewayUrl}/api/v0/stacks`, withKey())).text) as { stacks: { name: string }[] }
).stacks.map((stack) => stack.name);
const backendPid = pidOf(servingRole);
// Resets VmHWM, so the peak read afterwards is the bursts'.
writeFileSync(`/proc/${backendPid}/clear_refs`, "5");
let burstFailures = 0;
let deploysPerSecond = 0;
for (let burst = 0; burst < (measures("bursts") ? BURSTS : 0); burst++) {
  const started = performance.now();
  await Promise.all(
    stackNames.map(async (stack) => {
      const { status, text } = await request(`${gatewayUrl}/api/v0/deploy`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": apiKey },
        body: JSON.stringify({ stack, action: "pull" }),
      });
      if (status !== 200 || (JSON.parse(text) as { success?: boolean }).success !== true) burstFailures++;
    }),
  );
  deploysPerSecond = Math.max(deploysPerSecond, stackNames.length / ((performance.now() - started) / 1000));
}
const burstPeak = memoryOf(backendPid).peak;
// Once the bursts' garbage is handed back (the backend collects after a quiet spell): after 1,000 deploys.
const afterDeploys = measures("bursts") ? await settledRss(backendPid, 60_000) : 0;

// ---------------------------------------------------------------------------------------------
// 5,000 event streams

function openStream(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${gatewayUrl}/api/v0/deploy/events`,
      { ...withKey(), agent: false },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`event stream answered ${response.statusCode}`));
          return;
        }
        let received = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (received.length < 4096) received += chunk;
          if (received.includes('"type":"subscribed"')) resolve(response);
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** Polls the backend's RSS until it stops falling (or `timeoutMs`); the last reading. */
async function settledRss(pid: number, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  let last = memoryOf(pid).rss;
  let steady = 0;
  while (performance.now() < deadline && steady < 10) {
    await pause(1000);
    const now = memoryOf(pid).rss;
    steady = now < last - MiB / 2 ? 0 : steady + 1;
    last = now;
  }
  return last;
}

let streamFigures: { before: number; open: number; after: number; openedInSeconds: number } | string;
if (!measures("streams")) streamFigures = "not measured (FOOTPRINT_SECTIONS)";
else if (openFileLimit() < NEEDED_OPEN_FILES) {
  streamFigures = `skipped: ${STREAMS} streams need ${NEEDED_OPEN_FILES} open files per process, the limit is ${openFileLimit()} (run \`ulimit -n 16384\` first)`;
} else {
  const backend = pidOf(servingRole);
  // Once the bursts' garbage is handed back (the backend collects after a quiet spell).
  const before = await settledRss(backend, 60_000);
  const opened = performance.now();
  const streams: IncomingMessage[] = [];
  for (let batch = 0; batch < STREAMS; batch += 250)
    streams.push(...(await Promise.all(Array.from({ length: 250 }, openStream))));
  const openedInSeconds = (performance.now() - opened) / 1000;
  const open = await settledRss(backend, 10_000);
  for (const stream of streams) stream.destroy();
  const after = await settledRss(backend, 60_000);
  streamFigures = { before, open, after, openedInSeconds };
}

await stop(stackgate);
running.delete(stackgate);
await stopProcesses();

// ---------------------------------------------------------------------------------------------
// Report

console.log(
  `Machine: ${machine()}; ${loadAtStart} at the start, ${loadAverage()} at the end (a shared machine: indicative figures)`,
);
console.log(
  `    layout (STACKGATE_PROCESSES): ${layout === "one" ? "one process (gateway, backend and dashboard)" : "split (three processes)"}`,
);
console.log(`    npm runs on ${npmNode}; the supervisor and the services on ${servicesNode}`);
if (chosenSections.length < SECTIONS.length)
  console.log(`    sections measured (FOOTPRINT_SECTIONS): ${chosenSections.join(", ")}`);
const startLine = (label: string, durations: number[], target?: number) => {
  const { p50, max } = summarize(durations);
  const judged = target === undefined ? "" : `  (target ≤ ${target} ms: ${verdict(p50 <= target)})`;
  console.log(
    `    ${label}: ${durations.map((each) => each.toFixed(0)).join(", ")} ms; median ${ms(p50)}, max ${ms(max)}${judged}`,
  );
};
if (measures("starts")) {
  console.log(
    `\nStart-up: spawn → first GET /api/v0/stacks answered 200 through the gateway (API key, Komodo asked), ${STARTS} restarts each`,
  );
  startLine("node scripts/start.ts (the supervisor)", supervisorStarts, layout === "one" ? 300 : 500);
  startLine("npm start (npm's own start-up included)", npmStarts);
  startLine("control: a bare node:http server on the same Node", bareStarts);
}
if (measures("first")) {
  console.log(
    `\nFirst start over an empty DATA_DIR (migrations, the admin created): spawn of node scripts/start.ts → first GET /api/v0/sign-in/options answered 200, ${STARTS} times`,
  );
  startLine("node scripts/start.ts", firstStarts, layout === "one" ? 400 : undefined);
}

const memoryLine = (memory: Memory) =>
  `RSS ${mib(memory.rss).padStart(10)}, PSS ${mib(memory.pss).padStart(10)}, private ${mib(memory.private).padStart(10)}`;
console.log(
  measures("idle")
    ? `\nIdle memory after real use (signed in, a connection saved, ${LISTINGS} listings of ${STACKS} stacks, ${PAGES} × /stacks and /security, ${scannedImages} images scanned)`
    : "\nMemory after start-up (the real use was not measured: FOOTPRINT_SECTIONS)",
);
const targets: Record<string, number> =
  layout === "one" ? { stackgate: 110 } : { backend: 100, gateway: 50, frontend: 70 };
for (const role of services) {
  const memory = idle.get(role)!;
  console.log(
    // The target is for memory after real use: a run without it prints the figure unjudged.
    `    ${role.padEnd(10)} ${memoryLine(memory)}${measures("idle") ? `  (target ≤ ${targets[role]} MiB RSS: ${verdict(memory.rss <= targets[role]! * MiB)})` : ""}`,
  );
}
for (const [name, { rss, private: own }] of idleMappings)
  console.log(`      ${servingRole} mapping ${name}: RSS ${mib(rss)}, private ${mib(own)}`);
const supervision = [
  ["npm", npmMemory],
  ["sh", roles.has("shell") ? idle.get("shell")! : { rss: 0, pss: 0, private: 0, peak: 0 }],
  ["supervisor", idle.get("supervisor")!],
] as const;
for (const [name, memory] of supervision) console.log(`    ${name.padEnd(10)} ${memoryLine(memory)}`);
const total = (memories: readonly Memory[]) =>
  memories.reduce((sum, memory) => ({
    rss: sum.rss + memory.rss,
    pss: sum.pss + memory.pss,
    private: sum.private + memory.private,
    peak: 0,
  }));
const supervisionTotal = total(supervision.map(([, memory]) => memory));
console.log(
  `    supervision (npm + sh + supervisor) ${memoryLine(supervisionTotal)}  (target ≤ 60 MiB, judged on private memory, what the machine gets back without them: ${verdict(supervisionTotal.private <= 60 * MiB)}; RSS counts the Node binaries' shared pages once in every process)`,
);
const servicesTotal = total(services.map((role) => idle.get(role)!));
console.log(`    the service${services.length > 1 ? "s together" : ""} ${memoryLine(servicesTotal)}`);
const leftTotal = total(leftRunning);
console.log(
  `    everything npm start leaves running but npm (${leftRunning.length} processes) ${memoryLine(leftTotal)}${layout === "one" ? `  (target ≤ 120 MiB RSS: ${verdict(leftTotal.rss <= 120 * MiB)})` : ""}`,
);

if (listing && compressedListing) {
  const addedP50 = listing.throughGateway.p50 - listing.direct.p50;
  console.log(
    `\nStack list, ${STACKS} stacks, ${LIST_ROUNDS} requests each way after ${LIST_WARM_UP} warm-up, alternated; without Accept-Encoding (uncompressed, as curl and most pipelines ask)`,
  );
  console.log(
    `    straight to the simulator: p50 ${ms(listing.direct.p50)}  p99 ${ms(listing.direct.p99)}; through gateway + backend: p50 ${ms(listing.throughGateway.p50)}  p99 ${ms(listing.throughGateway.p99)}`,
  );
  console.log(`    added at p50: ${ms(addedP50)}  (target ≤ 1.5 ms: ${verdict(addedP50 <= 1.5)})`);
  console.log(
    `    CPU per listing (user + system, from /proc, warm-up included): ${Object.entries(
      listing.cpuPerListing,
    )
      .map(([role, value]) => `${role} ${ms(value)}`)
      .join(", ")} (not judged)`,
  );
  console.log(
    `    with Accept-Encoding: gzip, deflate, br (the gateway compresses): through gateway + backend p50 ${ms(compressedListing.throughGateway.p50)}, added ${ms(compressedListing.throughGateway.p50 - compressedListing.direct.p50)} (not judged)`,
  );
  if (backendListing)
    console.log(
      `    straight to the backend, no gateway (another ${LIST_ROUNDS} alternated): p50 ${ms(backendListing.throughGateway.p50)}, added ${ms(backendListing.throughGateway.p50 - backendListing.direct.p50)} (not judged)`,
    );
}

if (measures("streams")) {
  console.log(
    `\n${STREAMS} event streams (GET /api/v0/deploy/events, API key) through the gateway, on the ${servingRole} process`,
  );
  if (typeof streamFigures === "string") console.log(`    ${streamFigures}`);
  else {
    const perStream = (streamFigures.open - streamFigures.before) / STREAMS / 1024;
    const handedBack = streamFigures.after - streamFigures.before <= 10 * MiB;
    console.log(
      `    ${servingRole} RSS before ${mib(streamFigures.before)}, with ${STREAMS} open ${mib(streamFigures.open)} (opened in ${streamFigures.openedInSeconds.toFixed(1)} s), after they closed ${mib(streamFigures.after)}`,
    );
    console.log(
      `    per stream: ${perStream.toFixed(1)} KiB  (target ≤ 20 KiB: ${verdict(perStream <= 20)})`,
    );
    console.log(
      `    memory back after they closed: ${mib(streamFigures.after - streamFigures.before)} above before  (target ≤ 10 MiB: ${verdict(handedBack)})`,
    );
  }
}

if (measures("bursts")) {
  console.log(
    `\n${BURSTS} bursts of ${stackNames.length} concurrent API-key deploys (pull), at most ${deploysPerSecond.toFixed(0)} deploys/s, ${burstFailures} failures`,
  );
  console.log(
    `    ${servingRole} peak RSS: ${mib(burstPeak)}  (target ≤ 160 MiB: ${verdict(burstPeak <= 160 * MiB)})`,
  );
  console.log(
    `    ${servingRole} RSS once quiet after the ${BURSTS * stackNames.length} deploys: ${mib(afterDeploys)}${layout === "one" ? `  (target ≤ 150 MiB: ${verdict(afterDeploys <= 150 * MiB)})` : ""}`,
  );
}
process.exit(0);
