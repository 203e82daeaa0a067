/**
 * Issue 3's targets, measured on the real processes (simulator, backend, gateway):
 *  (a) GET /api/v0/stacks for 200 stacks through the gateway vs ListStacks straight to the simulator;
 *  (b) 200 concurrent API-key deploys of distinct stacks, each followed to its real outcome.
 * The load comes from node:http with kept-alive connections, like a load generator (wrk), so that the
 * client takes as little as possible of the two cores the services share with it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { standInTrivyPath } from "@stackgate/simulators";
import Sqlite from "better-sqlite3";
import {
  BENCH_KOMODO_KEY,
  BENCH_KOMODO_SECRET,
  benchLayout,
  cpuMs,
  loadAverage,
  machine,
  median,
  ms,
  request,
  signInAsBenchAdmin,
  startStackgate,
  stopProcesses,
  summarize,
} from "./lib.ts";

const STACKS = 200;
const LIST_ROUNDS = 300;
const KEY = BENCH_KOMODO_KEY;
const SECRET = BENCH_KOMODO_SECRET;

const loadAtStart = loadAverage();
const { komodoUrl, gatewayUrl, dataDir, apiKey, processes } = await startStackgate({
  stacks: STACKS,
  // Every successful deploy queues scans, as in production; they take a realistic while.
  backendEnv: {
    TRIVY_BIN: standInTrivyPath,
    STANDIN_TRIVY_SCAN_MS: "3000",
    SCANNER_SWEEP_DELAY_SECONDS: "3600",
  },
});

const LIST_WARM_UP = 20;
/** The first bursts warm up the JIT and the connection pools; the targets are judged on the rest. */
const WARM_UP_BURSTS = 2;
const BURSTS = 5;

/** One request from the benchmark's own client; resolves with the status and the parsed body. */
function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return request(url, init).then(({ status, text }) => ({ status, body: JSON.parse(text) as unknown }));
}

/** (a) The two ways of listing, alternated request by request so that both see the same machine. */
async function timeListing() {
  const direct: number[] = [];
  const throughGateway: number[] = [];
  const listDirect = () =>
    send(`${komodoUrl}/read/ListStacks`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": KEY, "x-api-secret": SECRET },
      body: JSON.stringify({ limit: 0 }),
    });
  const listThroughGateway = () => send(`${gatewayUrl}/api/v0/stacks`, { headers: { "x-api-key": apiKey } });
  for (let round = 0; round < LIST_WARM_UP + LIST_ROUNDS; round++) {
    for (const [run, durations] of [
      [listDirect, direct],
      [listThroughGateway, throughGateway],
    ] as const) {
      const started = performance.now();
      const { status } = await run();
      if (status !== 200) throw new Error(`listing failed: ${status}`);
      if (round >= LIST_WARM_UP) durations.push(performance.now() - started);
    }
  }
  return { direct: summarize(direct), throughGateway: summarize(throughGateway) };
}

/** (b) One burst: every stack deployed at once by API key; CPU time read per process around it. */
async function burst(names: string[]) {
  const cpuBefore = Object.entries(processes).map(
    ([name, child]) => [name, child, cpuMs(child.pid!)] as const,
  );
  const clientCpuBefore = process.cpuUsage();
  const windowStart = process.hrtime.bigint() / 1000n;
  const durations: number[] = [];
  const failures: string[] = [];
  const started = performance.now();
  await Promise.all(
    names.map(async (stack) => {
      const deployStarted = performance.now();
      const { status, body } = await send(`${gatewayUrl}/api/v0/deploy`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": apiKey },
        body: JSON.stringify({ stack, action: "pull" }),
      });
      durations.push(performance.now() - deployStarted);
      const answer = body as { success?: boolean; message?: string };
      if (status !== 200 || answer.success !== true) failures.push(`${stack}: ${status} ${answer.message}`);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const cpuPerDeploy = [
    ...cpuBefore.map(([name, child, before]) => [name, (cpuMs(child.pid!) - before) / names.length] as const),
    ["bench client", (clientCpu.user + clientCpu.system) / 1000 / names.length] as const,
  ];
  const window = [String(windowStart), String(process.hrtime.bigint() / 1000n)];
  return { seconds, durations, failures, cpuPerDeploy, window };
}

/**
 * Calls to Komodo so far, by call (`read/GetUpdate`), as the backend's own metrics count them: its
 * reads per deploy, whatever the version measured (a version without a call shows none of it).
 */
async function komodoCalls(metricsKey: string): Promise<Map<string, number>> {
  const { text } = await request(`${gatewayUrl}/metrics`, { headers: { "x-api-key": metricsKey } });
  const counts = new Map<string, number>();
  for (const [, call, count] of text.matchAll(
    /^stackgate_upstream_request_duration_seconds_count\{call="([^"]+)"\} (\d+)/gm,
  ))
    counts.set(call!, Number(count));
  return counts;
}

const metricsKey = (
  (
    await send(`${gatewayUrl}/api/v0/apikeys`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: await signInAsBenchAdmin(gatewayUrl) },
      body: JSON.stringify({ name: "bench-metrics", scope: { metrics: true, read: [], actions: [] } }),
    })
  ).body as { key: string }
).key;

const listing = await timeListing();
const stackNames = (
  (await send(`${gatewayUrl}/api/v0/stacks`, { headers: { "x-api-key": apiKey } })).body as {
    stacks: { name: string }[];
  }
).stacks.map((stack) => stack.name);
const names = stackNames.slice(0, STACKS);
const callsBefore = await komodoCalls(metricsKey);
const bursts = [];
for (let round = 0; round < BURSTS; round++) bursts.push(await burst(names));
const callsAfter = await komodoCalls(metricsKey);
const deploysSent = names.length * BURSTS;
const callsPerDeploy = [...callsAfter]
  .map(([call, count]) => [call, (count - (callsBefore.get(call) ?? 0)) / deploysSent] as const)
  .filter(([, perDeploy]) => perDeploy > 0)
  .sort(([a], [b]) => a.localeCompare(b));

if (process.env.BENCH_PROFILE_DIR) {
  // Monotonic microseconds, the clock of the CPU profiles' timestamps: each burst's window in them.
  const windows = Object.fromEntries(bursts.map((each, index) => [`burst${index + 1}`, each.window]));
  writeFileSync(join(process.env.BENCH_PROFILE_DIR, "windows.json"), JSON.stringify(windows));
}

const database = new Sqlite(join(dataDir, "db.sqlite"), { readonly: true });
const recorded = (
  database.prepare("select count(*) as count from deploy_history where actor = 'API Key: bench'").get() as {
    count: number;
  }
).count;
database.close();

const { direct, throughGateway } = listing;
const ratioP50 = throughGateway.p50 / direct.p50;
const ratioP99 = throughGateway.p99 / direct.p99;
const verdict = (ok: boolean) => (ok ? "meets target" : "MISSES target");

console.log(`Machine: ${machine()}`);
console.log(
  `Layout (BENCH_LAYOUT): ${benchLayout() === "one" ? "one process (gateway, backend and dashboard)" : "split (gateway and backend, each its own process)"}; ${loadAtStart} at the start, ${loadAverage()} at the end; V8 flags (BENCH_NODE_FLAGS): ${process.env.BENCH_NODE_FLAGS || "none"}`,
);
console.log(
  `\n(a) Stack list, ${STACKS} stacks, ${LIST_ROUNDS} requests each way after ${LIST_WARM_UP} warm-up, alternated`,
);
console.log(
  `    straight to the simulator (ListStacks limit 0): p50 ${ms(direct.p50)}  p99 ${ms(direct.p99)}`,
);
console.log(
  `    through gateway + backend (GET /api/v0/stacks):  p50 ${ms(throughGateway.p50)}  p99 ${ms(throughGateway.p99)}`,
);
console.log(
  `    overhead ratio: p50 ${ratioP50.toFixed(2)}  p99 ${ratioP99.toFixed(2)}  (target ≤ 1.5: ${verdict(ratioP50 <= 1.5 && ratioP99 <= 1.5)})`,
);
console.log(
  `\n(b) ${BURSTS} bursts of ${names.length} concurrent API-key deploys (pull) of distinct stacks, Updates complete at once`,
);
bursts.forEach((each, index) => {
  const { p50, p99 } = summarize(each.durations);
  const cpu = each.cpuPerDeploy.map(([name, value]) => `${name} ${value.toFixed(2)}`).join(", ");
  console.log(
    `    burst ${index + 1}${index < WARM_UP_BURSTS ? " (warm-up)" : "          "}: ${(names.length / each.seconds).toFixed(0)} deploys/s, p50 ${ms(p50)}  p99 ${ms(p99)}, failures ${each.failures.length}${each.failures.length ? ` (${each.failures.slice(0, 2).join("; ")})` : ""}; CPU ms per deploy: ${cpu}`,
  );
});
const warm = bursts.slice(WARM_UP_BURSTS);
const warmThroughput = median(warm.map((each) => names.length / each.seconds));
const warmLatency = summarize(warm.flatMap((each) => each.durations));
console.log(
  `    after warm-up: median ${warmThroughput.toFixed(0)} deploys/s (target ≥ 400: ${verdict(warmThroughput >= 400)}), p99 ${ms(warmLatency.p99)} (target < 500 ms: ${verdict(warmLatency.p99 < 500)})`,
);
console.log(
  `    Komodo calls per deploy: ${callsPerDeploy.map(([call, perDeploy]) => `${call} ${perDeploy.toFixed(2)}`).join(", ")} (${callsPerDeploy.reduce((sum, [, each]) => sum + each, 0).toFixed(2)} in all)`,
);
const expected = names.length * BURSTS;
console.log(`    history rows recorded: ${recorded} of ${expected} (${verdict(recorded === expected)})`);
console.log("    (CPU from /proc, in 10 ms scheduler ticks: rough)");
await stopProcesses();
process.exit(0);
