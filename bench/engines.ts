/**
 * Issue 23's comparison, on the real processes: deploys per second and history-list latency through
 * the gateway, side by side for SQLite, PostgreSQL with one backend and PostgreSQL with two backends.
 * Then, on two backends, the fault run: 1,000 pipeline deploys over about a minute, one backend
 * killed with kill -9 a third of the way in and started again two thirds in; every request must be
 * answered (only those in flight on the killed backend may fail), and every deploy that reached
 * Komodo must be in the history once.
 *
 *   node bench/engines.ts            (needs Debian's postgresql: apt-get install -y postgresql)
 */
import type { ChildProcess } from "node:child_process";
import {
  createTestDatabase,
  findPostgresPrograms,
  startPostgres,
} from "../apps/backend/src/testing/postgres.ts";
import {
  connectKomodoAndCreateKey,
  freePort,
  machine,
  ms,
  signInAsBenchAdmin,
  startBenchKomodo,
  startProcess,
  stopProcesses,
  summarize,
  temporaryDirectory,
} from "./lib.ts";

const STACKS = 50;
const DEPLOYS = 300;
const CONCURRENCY = 20;
const LISTS = 200;
const FAULT_DEPLOYS = 1000;
const FAULT_SECONDS = 60;
const SECRET = "bench-engines-secret-long-enough-0123456789";

if (!findPostgresPrograms()) {
  console.error("bench/engines.ts needs PostgreSQL's server programs: apt-get install -y postgresql");
  process.exit(1);
}
const postgres = await startPostgres();
const komodoPort = await freePort();
const komodoUrl = `http://127.0.0.1:${komodoPort}`;
await startBenchKomodo(komodoPort, STACKS);
let stacks: string[] = [];

interface Setup {
  gatewayUrl: string;
  key: string;
  backends: { child: ChildProcess; port: number; env: Record<string, string> }[];
}

async function startSetup(backendCount: number, databaseUrl?: string): Promise<Setup> {
  const gatewayPort = await freePort();
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const backends: Setup["backends"] = [];
  for (let index = 0; index < backendCount; index++) {
    const port = await freePort();
    const env = {
      BACKEND_PORT: String(port),
      DATA_DIR: temporaryDirectory("stackgate-engines-"),
      APP_URL: gatewayUrl,
      SEED_ADMIN_PASSWORD: "bench-password-123",
      BETTER_AUTH_SECRET: SECRET,
      LOG_LEVEL: "warn",
      NODE_ENV: "test",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    };
    const child = await startProcess("apps/backend/src/main.ts", [], env, `http://127.0.0.1:${port}/doc`);
    backends.push({ child, port, env });
  }
  await startProcess(
    "apps/gateway/src/main.ts",
    [],
    {
      PORT: String(gatewayPort),
      BACKEND_URLS: backends.map(({ port }) => `http://127.0.0.1:${port}`).join(","),
      FRONTEND_URL: "http://127.0.0.1:9",
    },
    `${gatewayUrl}/health`,
  );
  const cookie = await signInAsBenchAdmin(gatewayUrl);
  const key = await connectKomodoAndCreateKey({ gatewayUrl, cookie, komodoUrl, keyName: "engines" });
  const listed = (await (
    await fetch(`${gatewayUrl}/api/v0/stacks`, { headers: { "x-api-key": key } })
  ).json()) as {
    stacks: { name: string }[];
  };
  stacks = listed.stacks.map((stack) => stack.name);
  return { gatewayUrl, key, backends };
}

const deploy = (setup: Setup, stack: string) =>
  fetch(`${setup.gatewayUrl}/api/v0/deploy`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": setup.key },
    body: JSON.stringify({ stack, action: "pull" }),
  }).then(
    async (response) => ({ status: response.status, body: await response.text() }),
    (error: Error) => ({ status: 0, body: error.message }),
  );

async function measure(name: string, setup: Setup) {
  let next = 0;
  const started = performance.now();
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < DEPLOYS) {
        const index = next++;
        statuses.push((await deploy(setup, stacks[index % stacks.length]!)).status);
      }
    }),
  );
  const perSecond = DEPLOYS / ((performance.now() - started) / 1000);
  const lists: number[] = [];
  for (let index = 0; index < LISTS; index++) {
    const at = performance.now();
    await fetch(`${setup.gatewayUrl}/api/v0/history`, { headers: { "x-api-key": setup.key } }).then((r) =>
      r.text(),
    );
    lists.push(performance.now() - at);
  }
  const list = summarize(lists);
  const failed = statuses.filter((status) => status !== 200).length;
  console.log(
    `  ${name.padEnd(28)} ${perSecond.toFixed(1).padStart(7)} deploys/s   list p50 ${ms(list.p50)}  p99 ${ms(list.p99)}${failed ? `   (${failed} deploys not 200)` : ""}`,
  );
}

async function stopSetup() {
  await stopProcesses();
  await startBenchKomodo(komodoPort, STACKS).catch(() => {});
}

console.log(
  `Engines (${machine()}): ${DEPLOYS} pull deploys, ${CONCURRENCY} at a time over ${STACKS} stacks; ${LISTS} history lists`,
);
await measure("SQLite, one backend", await startSetup(1));
await stopSetup();
await measure("PostgreSQL, one backend", await startSetup(1, await createTestDatabase(postgres.adminUrl)));
await stopSetup();
const pair = await startSetup(2, await createTestDatabase(postgres.adminUrl));
await measure("PostgreSQL, two backends", pair);

// --- The fault run ---------------------------------------------------------------------------------
console.log(
  `\nFault run: ${FAULT_DEPLOYS} deploys over about ${FAULT_SECONDS} s through the gateway to two backends`,
);
const spacingMs = (FAULT_SECONDS * 1000) / FAULT_DEPLOYS;
const answers: Promise<{ status: number; body: string }>[] = [];
const killAt = Math.floor(FAULT_DEPLOYS / 3);
const restartAt = Math.floor((2 * FAULT_DEPLOYS) / 3);
const [doomed] = pair.backends;
for (let index = 0; index < FAULT_DEPLOYS; index++) {
  if (index === killAt) {
    doomed!.child.kill("SIGKILL");
    console.log(`  backend 1 killed (kill -9) after ${index} deploys`);
  }
  if (index === restartAt) {
    void startProcess(
      "apps/backend/src/main.ts",
      [],
      doomed!.env,
      `http://127.0.0.1:${doomed!.port}/doc`,
    ).then(() => console.log("  backend 1 started again"));
  }
  answers.push(deploy(pair, stacks[index % stacks.length]!));
  await new Promise((resolve) => setTimeout(resolve, spacingMs));
}
const settled = await Promise.all(answers);
const unanswered = settled.filter((answer) => answer.status === 0).length;
const failed = settled.filter((answer) => answer.status !== 200);
console.log(`  answered ${settled.length - unanswered} of ${settled.length}; not 200: ${failed.length}`);
for (const [status, count] of Object.entries(
  Object.groupBy(failed, (answer) => String(answer.status)) as Record<string, unknown[]>,
)) {
  console.log(
    `    ${status}: ${count.length}  e.g. ${failed.find((answer) => String(answer.status) === status)?.body.slice(0, 160)}`,
  );
}

// Every deploy that reached Komodo is in the history once: the history's entries of this key,
// against the pulls Komodo received during the fault run.
await new Promise((resolve) => setTimeout(resolve, 15_000));
const ids = new Set<string>();
let entries = 0;
let cursor: string | null = null;
do {
  const page = (await (
    await fetch(
      `${pair.gatewayUrl}/api/v0/history?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      {
        headers: { "x-api-key": pair.key },
      },
    )
  ).json()) as { history: { id: string }[]; nextCursor: string | null };
  for (const entry of page.history) ids.add(entry.id);
  entries += page.history.length;
  cursor = page.nextCursor;
} while (cursor);
const recorded = entries - DEPLOYS;
console.log(
  `  history: ${recorded} entries of the fault run (${entries - ids.size} doubled); answered 200: ${settled.length - failed.length}` +
    `  ${recorded >= settled.length - failed.length && entries === ids.size ? "✓" : "✗"} every answered deploy is recorded once`,
);
await stopProcesses();
postgres.remove();
process.exit(0);
