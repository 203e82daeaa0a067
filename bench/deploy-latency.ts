/**
 * How long a deploy's answer waits after Komodo has finished (issue 11). The Komodo simulator runs
 * in this process, every step taking STEP_MS; the backend is its own process. For `pull` (one step)
 * and `pull-redeploy` (three), the lag is the time between Komodo completing a step's Update and
 * Stackgate acting on it (the next step's execute reaching Komodo, or the answer), summed over steps. Measured with Komodo's
 * update stream followed, and with its upgrade refused (polling, as before the stream).
 *
 *   npx node bench/deploy-latency.ts
 */
import { type KomodoSimulator, startKomodoSimulator } from "@stackgate/simulators";
import {
  freePort,
  machine,
  ms,
  request,
  startProcess,
  stopProcesses,
  summarize,
  temporaryDirectory,
} from "./lib.ts";

const STEP_MS = 2_500;
/** Deploys at once (each on its own stack), and rounds of them per action. */
const CONCURRENT = 10;
const ROUNDS = { pull: 4, "pull-redeploy": 2 } as const;
const STEPS = { pull: 1, "pull-redeploy": 3 } as const;
const PASSWORD = "bench-password-123";
type Action = keyof typeof STEPS;

async function startWorld(refuseStream: boolean) {
  const komodo = await startKomodoSimulator({
    stacks: CONCURRENT,
    faults: { updateDelayMs: STEP_MS, ...(refuseStream ? { refuseUpdateStream: true } : {}) },
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await startProcess(
    "apps/backend/src/main.ts",
    [],
    {
      BACKEND_PORT: String(port),
      DATA_DIR: temporaryDirectory("stackgate-bench-"),
      APP_URL: url,
      SEED_ADMIN_PASSWORD: PASSWORD,
      LOG_LEVEL: "error",
      NODE_ENV: "test",
    },
    `${url}/doc`,
  );
  const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email: "admin@stackgate.local", password: PASSWORD }),
  });
  const cookie = signIn.headers
    .getSetCookie()
    .map((value) => value.split(";")[0])
    .join("; ");
  const headers = { "content-type": "application/json", origin: url, cookie };
  await request(`${url}/api/v0/deploy/credentials`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "bench", url: komodo.url, key: komodo.key, secret: komodo.secret }),
  });
  // Waits for the stream's verdict: logged in, or (refused) polling.
  const wanted = refuseStream ? "disconnected" : "connected";
  for (;;) {
    const { text } = await request(`${url}/api/v0/deploy/credentials`, { headers });
    if (JSON.parse(text).updateStream?.status === wanted) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { komodo, url, headers };
}

async function measure(world: Awaited<ReturnType<typeof startWorld>>, action: Action) {
  const { komodo, url, headers } = world;
  const stacks = await listStacks(komodo);
  komodo.clearCalls();
  const answeredAt = new Map<string, number>();
  const lags: number[] = [];
  let upstreamCalls = 0;
  let getUpdates = 0;
  for (let round = 0; round < ROUNDS[action]; round++) {
    await Promise.all(
      stacks.map(async ({ name }) => {
        const { status, text } = await request(`${url}/api/v0/deploy`, {
          method: "POST",
          headers,
          body: JSON.stringify({ stack: name, action }),
        });
        answeredAt.set(name, Date.now());
        if (status !== 200) throw new Error(`${action} of ${name} answered ${status}: ${text}`);
      }),
    );
    const calls = [...komodo.calls];
    upstreamCalls += calls.length;
    getUpdates += calls.filter((call) => call.type === "GetUpdate").length;
    for (const { id, name } of stacks) lags.push(await lagOf(komodo, calls, id, name, answeredAt.get(name)!));
    komodo.clearCalls();
  }
  const deploys = lags.length;
  return {
    lag: summarize(lags),
    getUpdatesPerStep: getUpdates / deploys / STEPS[action],
    callsPerDeploy: upstreamCalls / deploys,
    deploys,
  };
}

/**
 * The time Stackgate took to notice each step's end: from each Update's completion to the next
 * step's execute arriving at Komodo, and from the last one's completion to the answer.
 */
async function lagOf(
  komodo: KomodoSimulator,
  calls: KomodoSimulator["calls"],
  stackId: string,
  name: string,
  answeredAt: number,
): Promise<number> {
  const executes = calls.filter(
    (call) => call.api === "execute" && (call.params as { stack?: string }).stack === name,
  );
  const since = executes[0]!.at - 1_000;
  const { updates } = await komodoCall<{ updates: { id: string; start_ts: number }[] }>(
    komodo,
    "ListUpdates",
    {
      query: { "target.id": stackId, start_ts: { $gte: since } },
    },
  );
  const ends: number[] = [];
  for (const { id } of updates.reverse()) {
    ends.push((await komodoCall<{ end_ts: number }>(komodo, "GetUpdate", { id })).end_ts);
  }
  const nextStarts = [...executes.slice(1).map((call) => call.at), answeredAt];
  return ends.reduce((sum, end, step) => sum + (nextStarts[step]! - end), 0);
}

async function komodoCall<T>(komodo: KomodoSimulator, type: string, params: object): Promise<T> {
  const response = await fetch(`${komodo.url}/read/${type}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": komodo.key, "x-api-secret": komodo.secret },
    body: JSON.stringify(params),
  });
  return (await response.json()) as T;
}

const listStacks = (komodo: KomodoSimulator) =>
  komodoCall<{ id: string; name: string }[]>(komodo, "ListStacks", { limit: 0 });

const mark = (ok: boolean) => (ok ? "ok" : "MISSED");

console.log(`deploy latency: Komodo steps of ${STEP_MS} ms, ${CONCURRENT} deploys at once; ${machine()}`);
const results: Record<string, Record<Action, Awaited<ReturnType<typeof measure>>>> = {};
let failed = false;
for (const mode of ["stream", "refused"] as const) {
  const world = await startWorld(mode === "refused");
  results[mode] = {
    pull: await measure(world, "pull"),
    "pull-redeploy": await measure(world, "pull-redeploy"),
  };
  await stopProcesses();
  await world.komodo.close();
  for (const action of ["pull", "pull-redeploy"] as const) {
    const { lag, getUpdatesPerStep, callsPerDeploy, deploys } = results[mode][action];
    let verdict: string;
    if (mode === "stream") {
      const ok = lag.p99 <= 50 && getUpdatesPerStep <= 1;
      failed ||= !ok;
      verdict = `target lag p99 ≤ 50 ms, ≤ 1 GetUpdate/step: ${mark(ok)}`;
    } else {
      // Polling as before the stream: 10 ms doubling to 1 s, about 800 ms after each 2.5 s step.
      const ok = lag.p50 <= STEPS[action] * 1_000;
      failed ||= !ok;
      verdict = `target no worse than polling (≤ ${STEPS[action]} s p50): ${mark(ok)}`;
    }
    console.log(
      `${mode.padEnd(8)} ${action.padEnd(14)} lag p50 ${ms(lag.p50)}, p99 ${ms(lag.p99)}; ` +
        `GetUpdate/step ${getUpdatesPerStep.toFixed(2)}, Komodo calls/deploy ${callsPerDeploy.toFixed(2)} ` +
        `(${deploys} deploys) — ${verdict}`,
    );
  }
}
process.exit(failed ? 1 : 0);
