/**
 * Issue 10's flood target, measured on the real processes (simulator, backend, gateway): with 5,000
 * open event streams (API key, 20 per client address, from 250 loopback addresses) and 500 uploads
 * that trickle one byte every 5 s, ordinary API calls through the gateway stay under 100 ms p99 and
 * every stream gets the events of a deploy.
 *
 * Needs about 12,000 open files per process (`ulimit -n`): a process cannot raise its own limit,
 * so raise it in the shell that runs the benchmark (`ulimit -n 16384`) if it is lower.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import { loadavg } from "node:os";
import {
  cpuMs,
  machine,
  ms,
  openFileLimit,
  request,
  startStackgate,
  stopProcesses,
  summarize,
} from "./lib.ts";

const STREAMS = 5000;
const STREAMS_PER_ADDRESS = 20;
const SLOW_UPLOADS = 500;
const TRICKLE_INTERVAL_MS = 5000;
const WARM_UP_ROUNDS = 100;
const ROUNDS = 200;
const NEEDED_OPEN_FILES = 2 * STREAMS + SLOW_UPLOADS + 1000;

if (openFileLimit() < NEEDED_OPEN_FILES) {
  console.error(
    `bench/flood.ts needs ${NEEDED_OPEN_FILES} open files per process; the limit is ${openFileLimit()}. Run \`ulimit -n 16384\` first.`,
  );
  process.exit(1);
}

const { gatewayUrl, apiKey, processes } = await startStackgate({ stacks: 20, keyName: "flood" });
const gatewayPort = Number(new URL(gatewayUrl).port);
const withKey = { headers: { "x-api-key": apiKey } };

/** The i-th client address: 127.0.1.1, 127.0.1.2, … each opens as many streams as it may. */
const clientAddress = (index: number) => `127.0.${1 + Math.floor(index / 250)}.${1 + (index % 250)}`;

interface Stream {
  response: IncomingMessage;
  received: string;
  startedAt?: number;
  finishedAt?: number;
}

function openStream(localAddress: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${gatewayUrl}/api/v0/deploy/events`,
      { headers: { "x-api-key": apiKey }, localAddress, agent: false },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`event stream answered ${response.statusCode}`));
          return;
        }
        const stream: Stream = { response, received: "" };
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          stream.received += chunk;
          if (stream.received.includes('"type":"subscribed"')) resolve(stream);
          if (stream.startedAt === undefined && stream.received.includes('"type":"started"'))
            stream.startedAt = performance.now();
          if (stream.finishedAt === undefined && stream.received.includes('"type":"finished"'))
            stream.finishedAt = performance.now();
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** Unauthenticated sign-ins announcing 100 kB and sending a byte every 5 s; reopened when cut off. */
function startSlowUploads(count: number) {
  const sockets = new Set<Socket>();
  let cutOff = 0;
  const open = () => {
    const socket = connect(gatewayPort, "127.0.0.1");
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => {
      sockets.delete(socket);
      if (!stopped) {
        cutOff++;
        open();
      }
    });
    socket.resume();
    socket.write(
      "POST /api/auth/sign-in/email HTTP/1.1\r\nhost: bench\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{",
    );
  };
  let stopped = false;
  for (let index = 0; index < count; index++) open();
  const trickle = setInterval(() => {
    for (const socket of sockets) socket.write(" ");
  }, TRICKLE_INTERVAL_MS);
  return {
    cutOff: () => cutOff,
    stop() {
      stopped = true;
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
    },
  };
}

const ordinaryCalls = ["/api/v0/stacks", "/api/v0/history", "/doc"];

/** Ordinary API calls one after another, the three paths in turn; durations in ms. */
async function timeOrdinaryCalls(rounds: number) {
  const durations: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const path of ordinaryCalls) {
      const started = performance.now();
      const { status } = await request(gatewayUrl + path, withKey);
      if (status !== 200) throw new Error(`${path} answered ${status}`);
      durations.push(performance.now() - started);
    }
  }
  return summarize(durations);
}

await timeOrdinaryCalls(WARM_UP_ROUNDS);
const quiet = await timeOrdinaryCalls(ROUNDS);

const uploads = startSlowUploads(SLOW_UPLOADS);
const openingStarted = performance.now();
const streams: Stream[] = [];
const addresses = STREAMS / STREAMS_PER_ADDRESS;
for (let batch = 0; batch < STREAMS; batch += 250) {
  streams.push(
    ...(await Promise.all(
      Array.from({ length: 250 }, (_, index) => openStream(clientAddress((batch + index) % addresses))),
    )),
  );
}
const openingSeconds = (performance.now() - openingStarted) / 1000;

const overLimit = await new Promise<number>((resolve) => {
  httpRequest(
    `${gatewayUrl}/api/v0/deploy/events`,
    { ...withKey, localAddress: clientAddress(0), agent: false },
    (response) => {
      response.resume();
      resolve(response.statusCode!);
    },
  ).end();
});

const flooded = await timeOrdinaryCalls(ROUNDS);

const [{ name: stack }] = (
  JSON.parse((await request(`${gatewayUrl}/api/v0/stacks`, withKey)).text) as { stacks: { name: string }[] }
).stacks;
const cpuBefore = Object.entries(processes).map(([name, child]) => [name, child, cpuMs(child.pid!)] as const);
const clientCpuBefore = process.cpuUsage();
const deployStarted = performance.now();
const deploy = await request(`${gatewayUrl}/api/v0/deploy`, {
  method: "POST",
  headers: { "content-type": "application/json", "x-api-key": apiKey },
  body: JSON.stringify({ stack, action: "pull" }),
});
const deployAnsweredAfter = performance.now() - deployStarted;
const deadline = performance.now() + 30_000;
while (streams.some((stream) => stream.finishedAt === undefined) && performance.now() < deadline)
  await new Promise((resolve) => setTimeout(resolve, 100));
const informed = streams.filter((stream) => stream.finishedAt !== undefined);
/** From the deploy request to each stream's `started` event, and from its answer to `finished`. */
const startedDelivery = summarize(
  streams.flatMap((stream) => (stream.startedAt ? [stream.startedAt - deployStarted] : [])),
);
const finishedDelivery = summarize(
  informed.map((stream) => stream.finishedAt! - deployStarted - deployAnsweredAfter),
);
const clientCpu = process.cpuUsage(clientCpuBefore);
const deployCpu = [
  ...cpuBefore.map(([name, child, before]) => `${name} ${(cpuMs(child.pid!) - before).toFixed(0)}`),
  `bench client ${((clientCpu.user + clientCpu.system) / 1000).toFixed(0)}`,
].join(", ");
const cutOff = uploads.cutOff();
uploads.stop();
for (const stream of streams) stream.response.destroy();

const verdict = (ok: boolean) => (ok ? "meets target" : "MISSES target");
console.log(
  `Machine: ${machine()}; load average at the end ${loadavg()[0]!.toFixed(1)} (1 min), ${loadavg()[1]!.toFixed(1)} (5 min)`,
);
console.log(
  `\nOrdinary API calls (GET ${ordinaryCalls.join(", ")} in turn, API key, one at a time, ${ROUNDS * ordinaryCalls.length} calls after ${WARM_UP_ROUNDS * ordinaryCalls.length} warm-up)`,
);
console.log(`    quiet:   p50 ${ms(quiet.p50)}  p99 ${ms(quiet.p99)}  max ${ms(quiet.max)}`);
console.log(
  `    flooded: p50 ${ms(flooded.p50)}  p99 ${ms(flooded.p99)}  max ${ms(flooded.max)}  (target p99 < 100 ms: ${verdict(flooded.p99 < 100)})`,
);
console.log(
  `    the flood: ${streams.length} event streams open (${STREAMS_PER_ADDRESS} from each of ${addresses} addresses, opened in ${openingSeconds.toFixed(1)} s), ${SLOW_UPLOADS} slow uploads in flight (${cutOff} cut off by the body time limit and reopened)`,
);
console.log(
  `    stream ${STREAMS_PER_ADDRESS + 1} from one address: ${overLimit} (target 429: ${verdict(overLimit === 429)})`,
);
console.log(
  `\nOne deploy (${stack}, pull) while flooded: answered ${deploy.status} after ${ms(deployAnsweredAfter)}`,
);
console.log(
  `    streams that got its "finished" event: ${informed.length} of ${streams.length} (target all: ${verdict(informed.length === streams.length)})`,
);
if (informed.length) {
  console.log(
    `    "started" on the streams, from the deploy request: p50 ${ms(startedDelivery.p50)}  p99 ${ms(startedDelivery.p99)}  max ${ms(startedDelivery.max)}`,
  );
  console.log(
    `    "finished" on the streams, from the deploy's answer: p50 ${ms(finishedDelivery.p50)}  p99 ${ms(finishedDelivery.p99)}  max ${ms(finishedDelivery.max)}`,
  );
}
console.log(`    CPU ms from the deploy request until every stream had its events: ${deployCpu}`);
await stopProcesses();
process.exit(0);
