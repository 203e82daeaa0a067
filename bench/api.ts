/**
 * Issue 3's targets, measured on the real processes (simulator, backend, gateway):
 *  (a) GET /api/v0/stacks for 200 stacks through the gateway vs ListStacks straight to the simulator;
 *  (b) 200 concurrent API-key deploys of distinct stacks, each followed to its real outcome.
 */
import { join } from "node:path";
import { standInTrivyPath } from "@stackgate/simulators";
import Sqlite from "better-sqlite3";
import { freePort, machine, ms, startProcess, summarize, temporaryDirectory } from "./lib.ts";

const STACKS = 200;
const LIST_ROUNDS = 300;
const KEY = "K_benchbenchbenchbenchbenchbenchbenchbench_K";
const SECRET = "S_benchbenchbenchbenchbenchbenchbenchbench_S";
const PASSWORD = "bench-password-123";

const [komodoPort, backendPort, gatewayPort] = await Promise.all([freePort(), freePort(), freePort()]);
const komodoUrl = `http://127.0.0.1:${komodoPort}`;
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const dataDir = temporaryDirectory("stackgate-bench-");

await startProcess(
  "packages/simulators/src/komodo/cli.ts",
  [
    "--port",
    String(komodoPort),
    "--stacks",
    String(STACKS),
    "--update-delay-ms",
    "0",
    "--key",
    KEY,
    "--secret",
    SECRET,
  ],
  {},
  `${komodoUrl}/version`,
);
await startProcess(
  "apps/backend/src/main.ts",
  [],
  {
    BACKEND_PORT: String(backendPort),
    DATA_DIR: dataDir,
    APP_URL: gatewayUrl,
    SEED_ADMIN_PASSWORD: PASSWORD,
    LOG_LEVEL: "warn",
    NODE_ENV: "test",
    // Every successful deploy queues scans, as in production; they take a realistic while.
    TRIVY_BIN: standInTrivyPath,
    STANDIN_TRIVY_SCAN_MS: "3000",
    SCANNER_SWEEP_DELAY_SECONDS: "3600",
  },
  `http://127.0.0.1:${backendPort}/doc`,
);
await startProcess(
  "apps/gateway/src/main.ts",
  [],
  {
    PORT: String(gatewayPort),
    BACKEND_URL: `http://127.0.0.1:${backendPort}`,
    FRONTEND_URL: "http://127.0.0.1:9",
  },
  `${gatewayUrl}/health`,
);

const signIn = await fetch(`${gatewayUrl}/api/auth/sign-in/email`, {
  method: "POST",
  headers: { "content-type": "application/json", origin: gatewayUrl },
  body: JSON.stringify({ email: "admin@stackgate.local", password: PASSWORD }),
});
const cookie = signIn.headers
  .getSetCookie()
  .map((value) => value.split(";")[0])
  .join("; ");
const post = (path: string, body: unknown) =>
  fetch(gatewayUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: gatewayUrl, cookie },
    body: JSON.stringify(body),
  }).then((response) => response.json());
await post("/api/v0/deploy/credentials", { name: "bench", url: komodoUrl, key: KEY, secret: SECRET });
const { key: apiKey } = (await post("/api/v0/apikeys", { name: "bench" })) as { key: string };

async function timeSequential(rounds: number, request: () => Promise<Response>) {
  const durations: number[] = [];
  for (let round = 0; round < rounds + 20; round++) {
    const started = performance.now();
    const response = await request();
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`request failed: ${response.status}`);
    if (round >= 20) durations.push(performance.now() - started);
  }
  return summarize(durations);
}

const direct = await timeSequential(LIST_ROUNDS, () =>
  fetch(`${komodoUrl}/read/ListStacks`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": KEY, "x-api-secret": SECRET },
    body: JSON.stringify({ limit: 0 }),
  }),
);
const throughGateway = await timeSequential(LIST_ROUNDS, () =>
  fetch(`${gatewayUrl}/api/v0/stacks`, { headers: { "x-api-key": apiKey } }),
);

const stacks = (await (
  await fetch(`${gatewayUrl}/api/v0/stacks`, { headers: { "x-api-key": apiKey } })
).json()) as {
  stacks: { name: string }[];
};
const names = stacks.stacks.map((stack) => stack.name).slice(0, STACKS);

const deployDurations: number[] = [];
const failures: string[] = [];
const burstStarted = performance.now();
await Promise.all(
  names.map(async (stack) => {
    const started = performance.now();
    const response = await fetch(`${gatewayUrl}/api/v0/deploy`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ stack, action: "pull" }),
    });
    const body = (await response.json()) as { success?: boolean; message: string };
    deployDurations.push(performance.now() - started);
    if (response.status !== 200 || body.success !== true)
      failures.push(`${stack}: ${response.status} ${body.message}`);
  }),
);
const burstSeconds = (performance.now() - burstStarted) / 1000;
const deploys = summarize(deployDurations);

const database = new Sqlite(join(dataDir, "db.sqlite"), { readonly: true });
const recorded = (
  database.prepare("select count(*) as count from deploy_history where actor = 'API Key: bench'").get() as {
    count: number;
  }
).count;
database.close();

const ratioP50 = throughGateway.p50 / direct.p50;
const ratioP99 = throughGateway.p99 / direct.p99;
const throughput = names.length / burstSeconds;
const verdict = (ok: boolean) => (ok ? "meets target" : "MISSES target");

console.log(`Machine: ${machine()}`);
console.log(`\n(a) Stack list, ${STACKS} stacks, ${LIST_ROUNDS} sequential requests after 20 warm-up`);
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
  `\n(b) ${names.length} concurrent API-key deploys (pull) of distinct stacks, Updates complete at once`,
);
console.log(
  `    wall time ${(burstSeconds * 1000).toFixed(0)} ms → ${throughput.toFixed(0)} deploys/s (target ≥ 400: ${verdict(throughput >= 400)})`,
);
console.log(
  `    latency p50 ${ms(deploys.p50)}  p99 ${ms(deploys.p99)}  max ${ms(deploys.max)} (p99 target < 500 ms: ${verdict(deploys.p99 < 500)})`,
);
console.log(
  `    failures: ${failures.length}${failures.length ? ` (${failures.slice(0, 3).join("; ")})` : ""}`,
);
console.log(
  `    history rows recorded: ${recorded} of ${names.length} (${verdict(recorded === names.length)})`,
);
process.exit(0);
