/**
 * Issue 23's event-stream targets for the gateway, on the real processes (simulator, backend,
 * gateway): with 5,000 event streams open through the gateway, a deploy's `started` event reaches
 * them with p99 ≤ 150 ms (from the deploy request), as straight to the backend; and once they close,
 * the gateway hands the memory back.
 *
 * Same deploys, same backend, measured two ways: first 5,000 streams through the gateway (its
 * per-client limit raised), then 5,000 straight to the backend. Each way takes `DEPLOYS` deploys one
 * after another; each deploy's p99 over the 5,000 streams is printed, and the worst is judged.
 *
 * Then the control: the same client, streams and deploys against bench/bare-event-server.ts, a server
 * that only writes a frame of the same size to every stream: the floor this machine sets.
 *
 * `BENCH_GATEWAY_SCRIPT` runs another build of the gateway (for example the one before a change).
 * `BENCH_LAYOUT=one`: through the one process (gateway, backend and dashboard) instead; its RSS is
 * the one judged, and there is no backend of its own to reach straight.
 * Needs about 11,000 open files per process: `ulimit -n 16384` first.
 */

import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { join } from "node:path";
import {
  benchLayout,
  cpuMs,
  freePort,
  loadAverage,
  machine,
  ms,
  openFileLimit,
  request,
  startProcess,
  startStackgate,
  stopProcesses,
  summarize,
} from "./lib.ts";

const STREAMS = 5000;
const DEPLOYS = 3;
const WARM_UP_STREAMS = 500;
const STARTED_P99_TARGET_MS = 150;
/** What the gateway may keep, once the streams closed, over what it used before they opened. */
const KEPT_AFTER_CLOSE_TARGET_MIB = 10;
const NEEDED_OPEN_FILES = 2 * STREAMS + 1000;

if (openFileLimit() < NEEDED_OPEN_FILES) {
  console.error(
    `bench/gateway-streams.ts needs ${NEEDED_OPEN_FILES} open files per process; the limit is ${openFileLimit()}. Run \`ulimit -n 16384\` first.`,
  );
  process.exit(1);
}

const { gatewayUrl, backendUrl, apiKey, processes } = await startStackgate({
  stacks: 20,
  keyName: "streams",
  gatewayEnv: { MAX_STREAMS_PER_CLIENT: String(2 * STREAMS) },
  gatewayScript: process.env.BENCH_GATEWAY_SCRIPT,
});
const layout = benchLayout();
const loadAtStart = loadAverage();
/** The process the streams pass through: the gateway's, or the one process. */
const gatewayProcess = layout === "one" ? processes.stackgate! : processes.gateway!;
const serving = Object.entries(processes).filter(([name]) => name !== "simulator");
const MiB = 1024 * 1024;
const rssOf = (pid: number) =>
  Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;
/** The size of Stackgate's `started` frame as the first stream read it (the control writes as much). */
let startedFrameBytes: number | undefined;
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Client addresses 127.0.1.1 … 127.0.1.250 in turn, so that no one address runs out of ports. */
const clientAddress = (index: number) => `127.0.1.${1 + (index % 250)}`;

interface Stream {
  response: IncomingMessage;
  /** When the `started` event of the deploy being watched arrived. */
  startedAt?: number;
  finishedAt?: number;
}

function openStream(baseUrl: string, index: number): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${baseUrl}/api/v0/deploy/events`,
      { headers: { "x-api-key": apiKey }, localAddress: clientAddress(index), agent: false },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`event stream answered ${response.statusCode}`));
          return;
        }
        const stream: Stream = { response };
        response.setEncoding("utf8");
        // The end of the previous chunk, in case an event's type was split between two.
        let tail = "";
        response.on("data", (chunk: string) => {
          const text = tail + chunk;
          tail = chunk.slice(-32);
          if (text.includes('"type":"subscribed"')) resolve(stream);
          if (stream.startedAt === undefined && text.includes('"type":"started"')) {
            stream.startedAt = performance.now();
            const data = text.indexOf('{"type":"started"');
            const end = text.indexOf("\n\n", data);
            if (end !== -1)
              startedFrameBytes ??= Buffer.byteLength(`event: message\ndata: ${text.slice(data, end)}\n\n`);
          }
          if (stream.finishedAt === undefined && text.includes('"type":"finished"'))
            stream.finishedAt = performance.now();
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

async function openStreams(baseUrl: string) {
  const streams: Stream[] = [];
  for (let batch = 0; batch < STREAMS; batch += 250)
    streams.push(
      ...(await Promise.all(Array.from({ length: 250 }, (_, index) => openStream(baseUrl, batch + index)))),
    );
  return streams;
}

const stacks = (
  JSON.parse((await request(`${gatewayUrl}/api/v0/stacks`, { headers: { "x-api-key": apiKey } })).text) as {
    stacks: { name: string }[];
  }
).stacks.map((stack) => stack.name);

/** Deploys one stack after another; for each, the p99 (and max) from the request to `started` on every stream. */
async function deployAndTime(
  streams: Stream[],
  baseUrl = gatewayUrl,
  measured: (readonly [string, ChildProcess])[] = serving,
) {
  const figures: { p50: number; p99: number; max: number; missed: number; status: number }[] = [];
  const windowStart = process.hrtime.bigint() / 1000n;
  const cpuBefore = measured.map(([name, child]) => [name, child, cpuMs(child.pid!)] as const);
  for (let round = 0; round < DEPLOYS; round++) {
    for (const stream of streams) {
      stream.startedAt = undefined;
      stream.finishedAt = undefined;
    }
    const deployStarted = performance.now();
    const deploy = await request(`${baseUrl}/api/v0/deploy`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ stack: stacks[round % stacks.length], action: "pull" }),
    });
    const deadline = performance.now() + 30_000;
    while (streams.some((stream) => stream.finishedAt === undefined) && performance.now() < deadline)
      await pause(100);
    const started = streams.flatMap((stream) => (stream.startedAt ? [stream.startedAt - deployStarted] : []));
    figures.push({
      ...(started.length ? summarize(started) : { p50: Number.NaN, p99: Number.NaN, max: Number.NaN }),
      missed: streams.length - started.length,
      status: deploy.status,
    });
    await pause(1000);
  }
  // CPU the deploys' events cost each process (a second of pauses included: idle costs nothing).
  const cpu = Object.fromEntries(
    cpuBefore.map(([name, child, before]) => [name, cpuMs(child.pid!) - before]),
  );
  const window = [String(windowStart), String(process.hrtime.bigint() / 1000n)];
  return Object.assign(figures, { cpu, window });
}

// Through the gateway. "Before" is read once a first few streams have been opened and closed, so
// that it counts what any gateway that ever served a stream has (compiled code, Node's pools); the
// RSS at start is printed too.
await pause(2000);
const gatewayPid = gatewayProcess.pid!;
const gatewayAtStart = rssOf(gatewayPid);
const warmUp = [];
for (let index = 0; index < WARM_UP_STREAMS; index++) warmUp.push(await openStream(gatewayUrl, index));
for (const stream of warmUp) stream.response.destroy();
await pause(5000);
const gatewayBefore = rssOf(gatewayPid);
const throughGatewayStreams = await openStreams(gatewayUrl);
const gatewayOpen = rssOf(gatewayPid);
const throughGateway = await deployAndTime(throughGatewayStreams);
for (const stream of throughGatewayStreams) stream.response.destroy();
// Read every second for 15 s: what the gateway keeps once the streams are gone is the last reading.
const gatewayAfterEach: number[] = [];
for (let second = 0; second < 15; second++) {
  await pause(1000);
  gatewayAfterEach.push(rssOf(gatewayPid));
}
const gatewayAfter = gatewayAfterEach.at(-1)!;

// Straight to the backend (split only: the one process has no backend port of its own).
let direct: Awaited<ReturnType<typeof deployAndTime>> | undefined;
if (layout === "split") {
  await pause(3000);
  const directStreams = await openStreams(backendUrl);
  direct = await deployAndTime(directStreams);
  for (const stream of directStreams) stream.response.destroy();
}

// The control: the same client and as many streams, on a server that only writes one frame of the
// size of Stackgate's `started` to each (bench/bare-event-server.ts), so each figure above can be
// read against what this machine's loopback sockets allow.
await stopProcesses();
await pause(2000);
const barePort = await freePort();
const bareUrl = `http://127.0.0.1:${barePort}`;
const bare = await startProcess(
  "bench/bare-event-server.ts",
  [],
  { PORT: String(barePort), FRAME_BYTES: String(startedFrameBytes ?? 1024) },
  `${bareUrl}/health`,
);
const bareStreams = await openStreams(bareUrl);
const floor = await deployAndTime(bareStreams, bareUrl, [["bare server", bare]]);
for (const stream of bareStreams) stream.response.destroy();

if (process.env.BENCH_PROFILE_DIR) {
  // Monotonic microseconds, the clock of the CPU profiles' timestamps: the deploys' windows in them.
  const windows = { throughGateway: throughGateway.window, straight: direct?.window, control: floor.window };
  writeFileSync(join(process.env.BENCH_PROFILE_DIR, "windows.json"), JSON.stringify(windows));
}

const verdict = (ok: boolean) => (ok ? "meets target" : "MISSES target");
const worst = (figures: { p99: number }[]) => Math.max(...figures.map((figure) => figure.p99));
const line = (figures: { p50: number; p99: number; max: number; missed: number; status: number }[]) =>
  figures
    .map(
      (figure) =>
        `p50 ${ms(figure.p50)} p99 ${ms(figure.p99)} max ${ms(figure.max)}${figure.missed ? ` (${figure.missed} streams missed it; the deploy answered ${figure.status})` : ""}`,
    )
    .join("; ");
const missed = [...throughGateway, ...(direct ?? [])].reduce((sum, figure) => sum + figure.missed, 0);
console.log(
  `Machine: ${machine()}; ${loadAtStart} at the start, ${loadAverage()} at the end; layout ${layout === "one" ? "one process" : "split"}`,
);
console.log(
  `\n${STREAMS} event streams (GET /api/v0/deploy/events, API key), ${DEPLOYS} deploys one after another; "started" on every stream, from the deploy request:`,
);
console.log(
  `    through the gateway:     ${line(throughGateway)}  (target worst p99 ≤ ${STARTED_P99_TARGET_MS} ms: ${verdict(worst(throughGateway) <= STARTED_P99_TARGET_MS && missed === 0)})`,
);
if (direct) console.log(`    straight to the backend: ${line(direct)}`);
console.log(
  `    control, a bare node:http server writing one ${startedFrameBytes ?? 1024}-byte frame to each stream: ${line(floor)}`,
);
const cpuLine = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .map(([name, value]) => `${name} ${value.toFixed(0)} ms`)
    .join(", ");
console.log(
  `    CPU for the ${DEPLOYS} deploys' events: through the gateway: ${cpuLine(throughGateway.cpu)}${direct ? `; straight: ${cpuLine(direct.cpu)}` : ""}; control: ${cpuLine(floor.cpu)}`,
);
const kept = (gatewayAfter - gatewayBefore) / MiB;
console.log(
  `\n${layout === "one" ? "The one process's" : "Gateway"} RSS: at start ${(gatewayAtStart / MiB).toFixed(1)} MiB; before the streams (after ${WARM_UP_STREAMS} opened and closed) ${(gatewayBefore / MiB).toFixed(1)} MiB, with ${STREAMS} open ${(gatewayOpen / MiB).toFixed(1)} MiB, after they closed ${(gatewayAfter / MiB).toFixed(1)} MiB (second by second: ${gatewayAfterEach.map((rss) => (rss / MiB).toFixed(0)).join(", ")}) (target: handed back, at most ${KEPT_AFTER_CLOSE_TARGET_MIB} MiB over before: ${verdict(kept <= KEPT_AFTER_CLOSE_TARGET_MIB)})`,
);
await stopProcesses();
process.exit(0);
