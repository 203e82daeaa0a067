import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BackendProcess,
  signInAdmin,
  startBackendProcess,
} from "../../backend/src/deploy/backend-process.ts";
import { openEventStream } from "../../backend/src/testing/event-stream.ts";
import type { GatewayOptions } from "./gateway.ts";
import { listen, withOwnGateway } from "./test-http.ts";
import { startGatewayProcess } from "./testing.ts";

const PASSWORD = "several-backends-password-1";

function close(server: Server) {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
}

/** Runs `use` against a gateway of its own in front of `backendUrls`. */
async function withGateway(
  backendUrls: string[],
  options: Partial<GatewayOptions>,
  use: (url: string) => Promise<void>,
) {
  return withOwnGateway({ backendUrls, frontendUrl: "http://127.0.0.1:9", version: "x", ...options }, use);
}

/**
 * A small backend whose exact behaviour is the point: ready at /health/ready (while `ready`), it records every other
 * request (with its body) and answers it with its name, or as `behaviour` says. Event streams
 * (`/api/v0/deploy/events`) say its name and stay open.
 */
async function startStandIn(
  name: string,
  {
    behaviour = () => false,
    ready = () => true,
  }: { behaviour?: (req: IncomingMessage, res: ServerResponse) => boolean; ready?: () => boolean } = {},
) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    if (req.url === "/health/ready") {
      res.writeHead(ready() ? 200 : 503, { "content-type": "application/json" }).end("{}");
      return;
    }
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      seen.push(`${req.method} ${req.url} ${body}`.trim());
      if (behaviour(req, res)) return;
      if (req.url?.startsWith("/api/v0/deploy/events")) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: {"backend":"${name}"}\n\n`);
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ backend: name }));
    });
  });
  const url = await listen(server);
  return { name, url, seen, server, close: () => close(server) };
}

/** Opens an event stream and resolves with its status and its first chunk. */
function firstEvent(url: string) {
  return new Promise<{ status: number; text: string; response: IncomingMessage }>((resolve, reject) => {
    const outgoing = request(url, { agent: false }, (response) => {
      response.setEncoding("utf8");
      response.once("data", (text: string) => resolve({ status: response.statusCode!, text, response }));
      response.once("end", () => resolve({ status: response.statusCode!, text: "", response }));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

describe("several backends behind the gateway (real backends)", () => {
  const dataDirs: string[] = [];
  const backends: BackendProcess[] = [];
  /** A session of the first backend: only the first knows it, so an answer tells which one answered. */
  let firstSession: string;

  beforeAll(async () => {
    for (let index = 0; index < 2; index++) dataDirs.push(mkdtempSync(join(tmpdir(), "stackgate-several-")));
    backends.push(
      ...(await Promise.all(
        dataDirs.map((dataDir) => startBackendProcess({ dataDir, adminPassword: PASSWORD })),
      )),
    );
    // A third over the second's database: these two are one service, as on a shared PostgreSQL.
    backends.push(await startBackendProcess({ dataDir: dataDirs[1]!, adminPassword: PASSWORD }));
    firstSession = await signInAdmin(backends[0]!.url, PASSWORD);
  }, 60_000);
  afterAll(() => {
    for (const backend of backends) backend.child.kill("SIGKILL");
    for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Which backend answered: the first knows the session, the others do not. */
  async function askWhich(url: string) {
    const response = await fetch(`${url}/api/auth/get-session`, { headers: { cookie: firstSession } });
    expect(response.status).toBe(200);
    return (await response.json()) === null ? "other" : "first";
  }

  it("spreads requests over the backends", async () => {
    await withGateway([backends[0]!.url, backends[1]!.url], {}, async (url) => {
      const answers = [];
      for (let round = 0; round < 10; round++) answers.push(await askWhich(url));
      expect(answers.filter((which) => which === "first")).toHaveLength(5);
      expect(answers.filter((which) => which === "other")).toHaveLength(5);
    });
  });

  it("still works with one backend and no new setting (BACKEND_URL only)", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const gateway = spawn(process.execPath, [join(import.meta.dirname, "main.ts")], {
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        GATEWAY_HOST: "127.0.0.1",
        BACKEND_URL: backends[0]!.url,
      },
      stdio: "ignore",
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      await expect
        .poll(
          () =>
            fetch(`${url}/health/ready`).then(
              (response) => response.status,
              () => 0,
            ),
          {
            timeout: 15_000,
          },
        )
        .toBe(200);
      for (let round = 0; round < 4; round++) expect(await askWhich(url)).toBe("first");
    } finally {
      gateway.kill("SIGKILL");
    }
  });

  it("on SIGTERM a backend says it is draining, finishes what it has, ends its streams with a hint, and no request fails", async () => {
    const [stays, stops] = [backends[1]!, backends[2]!];
    const session = await signInAdmin(stays.url, PASSWORD);
    await withGateway([stays.url, stops.url], { healthIntervalMs: 250 }, async (url) => {
      // One stream on each backend (streams go to the one with fewer open).
      const streams = [
        await openEventStream(`${url}/api/v0/deploy/events`, { cookie: session }),
        await openEventStream(`${url}/api/v0/deploy/events`, { cookie: session }),
      ];
      for (const stream of streams) expect((await stream.next()).type).toBe("subscribed");

      const failures: string[] = [];
      let answered = 0;
      let running = true;
      // oRPC calls (POST with a body: never sent twice) and session reads (GET), four at a time,
      // all through the stop.
      const call = (path: string, init: RequestInit) =>
        fetch(url + path, init).then(
          (response) => response.status,
          (error: Error) => error.message,
        );
      const worker = async (index: number) => {
        while (running) {
          const outcome =
            index % 2 === 0
              ? await call("/rpc/me/get", {
                  method: "POST",
                  headers: { "content-type": "application/json", origin: url, cookie: session },
                  body: "{}",
                })
              : await call("/api/auth/get-session", { headers: { cookie: session } });
          if (outcome === 200) answered++;
          else failures.push(String(outcome));
        }
      };
      const workers = [0, 1, 2, 3].map(worker);
      await expect.poll(() => answered, { timeout: 10_000 }).toBeGreaterThan(20);

      stops.child.kill("SIGTERM");
      await expect
        .poll(() => fetch(`${stops.url}/health/ready`).then((response) => response.status))
        .toBe(503);
      expect(await (await fetch(`${stops.url}/health/ready`)).json()).toEqual({ status: "draining" });

      // Its stream ends, told to reconnect soon; the reconnection lands on the other backend.
      const endOf = async (stream: (typeof streams)[number]) => {
        try {
          for (;;) await stream.next(20_000);
        } catch (error) {
          return (error as Error).message;
        }
      };
      const { ended, why } = await Promise.race(
        streams.map((stream, index) => endOf(stream).then((why) => ({ ended: index, why }))),
      );
      expect(why).toMatch(/ended/);
      expect(streams[ended]!.rawChunks.join("")).toContain("retry: 500\n\n");
      const reconnected = await openEventStream(`${url}/api/v0/deploy/events`, { cookie: session });
      expect((await reconnected.next()).type).toBe("subscribed");

      expect(await stops.exited).toBe(0);
      const answeredBefore = answered;
      await expect.poll(() => answered, { timeout: 10_000 }).toBeGreaterThan(answeredBefore + 20);
      running = false;
      await Promise.all(workers);
      expect(failures).toEqual([]);
      reconnected.close();
      for (const stream of streams) stream.close();
    });
  }, 60_000);
});

describe("several backends behind the gateway (stand-ins)", () => {
  it("sends a request that could not connect to the next backend, a POST included", async () => {
    const gone = await startStandIn("gone");
    const live = await startStandIn("live");
    // Checked once at the start (both ready), then not again during the test.
    await withGateway([gone.url, live.url], { healthIntervalMs: 60_000 }, async (url) => {
      await gone.close();
      for (let round = 0; round < 4; round++) {
        const posted = await fetch(`${url}/api/v0/deploy`, { method: "POST", body: `{"round":${round}}` });
        expect(await posted.json()).toEqual({ backend: "live" });
        expect(await (await fetch(`${url}/api/v0/stacks`)).json()).toEqual({ backend: "live" });
      }
      expect(live.seen.filter((line) => line.startsWith("POST"))).toEqual(
        [0, 1, 2, 3].map((round) => `POST /api/v0/deploy {"round":${round}}`),
      );
    });
    await live.close();
  });

  it("never sends a POST to a second backend once the first may have received it; a GET goes on", async () => {
    // Reads the whole request, then drops the connection without a byte of answer.
    const dropper = await startStandIn("dropper", {
      behaviour: (_req, res) => {
        res.socket?.destroy();
        return true;
      },
    });
    const live = await startStandIn("live");
    await withGateway([dropper.url, live.url], { healthIntervalMs: 60_000 }, async (url) => {
      const posted = await fetch(`${url}/api/v0/apikeys`, { method: "POST", body: '{"name":"ci"}' });
      expect(posted.status).toBe(502);
      expect(await posted.json()).toMatchObject({ code: "BAD_GATEWAY" });
      expect(dropper.seen).toEqual(['POST /api/v0/apikeys {"name":"ci"}']);
      expect(live.seen).toEqual([]);

      // Turns alternate: the next request goes to the dropper first, and being a GET, on to the other.
      const read = await fetch(`${url}/api/v0/stacks`);
      expect(await read.json()).toEqual({ backend: "live" });
      expect(dropper.seen).toHaveLength(1);
      expect(live.seen).toEqual(["GET /api/v0/stacks"]);
    });
    await dropper.close();
    await live.close();
  });

  it("sends a deploy whose connection broke on to the next backend with the same Idempotency-Key, its own when the client gave none", async () => {
    const keys: Record<string, (string | undefined)[]> = { dropper: [], live: [] };
    const keyOf = (name: string) => (req: IncomingMessage) => {
      keys[name]!.push(req.headers["idempotency-key"] as string | undefined);
    };
    const dropper = await startStandIn("dropper", {
      behaviour: (req, res) => {
        keyOf("dropper")(req);
        res.socket?.destroy();
        return true;
      },
    });
    const live = await startStandIn("live", {
      behaviour: (req) => {
        keyOf("live")(req);
        return false;
      },
    });
    await withGateway([dropper.url, live.url], { healthIntervalMs: 60_000 }, async (url) => {
      const deploy = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${url}${path}`, { method: "POST", headers, body: '{"stack":"web"}' });
      const withoutKey = await deploy("/api/v0/deploy");
      expect(withoutKey.status).toBe(200);
      expect(await withoutKey.json()).toEqual({ backend: "live" });
      expect(keys.dropper![0]).toMatch(/^gateway-[0-9a-f-]{36}$/);
      expect(keys.live).toEqual(keys.dropper);

      // Turns alternate: the GET in between lets the dashboard's deploy meet the dropper first too.
      await fetch(`${url}/api/v0/stacks`);
      expect((await deploy("/rpc/deploy/run", { "idempotency-key": "pipeline-run-7" })).status).toBe(200);
      expect(keys.dropper!.at(-1)).toBe("pipeline-run-7");
      expect(keys.live!.at(-1)).toBe("pipeline-run-7");
    });
    // In front of one backend there is no other to send to: no key of the gateway's.
    await withGateway([live.url], {}, async (url) => {
      await fetch(`${url}/api/v0/deploy`, { method: "POST", body: '{"stack":"web"}' });
      expect(keys.live!.at(-1)).toBeUndefined();
    });
    await dropper.close();
    await live.close();
  });

  it("answers 502 naming the reason when every backend refuses", async () => {
    const first = await startStandIn("first");
    const second = await startStandIn("second");
    await withGateway([first.url, second.url], { healthIntervalMs: 60_000 }, async (url) => {
      await first.close();
      await second.close();
      const response = await fetch(`${url}/api/v0/stacks`);
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({
        code: "BAD_GATEWAY",
        message: "The backend is not reachable (ECONNREFUSED)",
      });
    });
  });

  it("spreads event streams and opens them on a live backend when one is gone", async () => {
    const one = await startStandIn("one");
    const two = await startStandIn("two");
    await withGateway([one.url, two.url], { healthIntervalMs: 60_000 }, async (url) => {
      const events = `${url}/api/v0/deploy/events`;
      const opened = [await firstEvent(events), await firstEvent(events)];
      expect(opened.map((stream) => stream.status)).toEqual([200, 200]);
      expect(opened.map((stream) => JSON.parse(stream.text.slice(6)).backend).sort()).toEqual(["one", "two"]);
      expect(opened[0]!.response.headers["x-frame-options"]).toBe("DENY");
      expect(opened[0]!.response.headers["cache-control"]).toBe("no-cache, no-transform");

      // The backend ends its streams (it is stopping) and stops listening: clients reconnect elsewhere.
      const onOne = opened.find((stream) => stream.text.includes('"one"'))!;
      const ended = new Promise((resolve) => onOne.response.once("close", resolve));
      await one.close();
      await ended;
      for (let round = 0; round < 3; round++) {
        const again = await firstEvent(events);
        expect(again.text).toContain('"two"');
        again.response.destroy();
      }
      for (const stream of opened) stream.response.destroy();
    });
    await two.close();
  });

  it("stops sending to a backend whose readiness answers 503, and sends to it again once it is ready", async () => {
    let draining = false;
    const drains = await startStandIn("drains", { ready: () => !draining });
    const live = await startStandIn("live");
    await withGateway([drains.url, live.url], { healthIntervalMs: 100 }, async (url) => {
      draining = true;
      await expect
        .poll(async () => {
          const answers = await Promise.all(
            Array.from({ length: 4 }, () =>
              fetch(`${url}/api/v0/stacks`).then((response) => response.json()),
            ),
          );
          return answers.every((answer) => answer.backend === "live");
        })
        .toBe(true);
      const seenWhileDraining = drains.seen.length;
      for (let round = 0; round < 6; round++) await fetch(`${url}/api/v0/stacks`);
      expect(drains.seen).toHaveLength(seenWhileDraining);

      draining = false;
      await expect
        .poll(async () => (await (await fetch(`${url}/api/v0/stacks`)).json()).backend)
        .toBe("drains");
    });
    await drains.close();
    await live.close();
  });
});

describe("gateway start-up errors for BACKEND_URLS", () => {
  it.each([
    [" , ", /^The gateway cannot start: BACKEND_URLS is empty \(" , "\)/],
    [
      "http://127.0.0.1:3001,ftp://backend",
      /^The gateway cannot start: BACKEND_URLS has "ftp:\/\/backend", which is not an http\(s\) URL/,
    ],
    ["http://127.0.0.1:3001,,http://127.0.0.1:3002", /^The gateway cannot start: BACKEND_URLS has ""/],
    ["backend-1:3000", /^The gateway cannot start: BACKEND_URLS has "backend-1:3000"/],
  ])("names a bad BACKEND_URLS (%j) in one line and exits with 78", async (value, message) => {
    const { code, output } = await startGatewayProcess({ BACKEND_URLS: value });
    expect(code).toBe(78);
    expect(output.split("\n")).toHaveLength(1);
    expect(output).toMatch(message);
  });

  it("leaves credentials written into the URLs out of the line", async () => {
    const { code, output } = await startGatewayProcess({
      BACKEND_URLS: "http://stackgate:s3cret-word@127.0.0.1:3001,ftp://backend",
    });
    expect(code).toBe(78);
    expect(output).toContain('"http://…@127.0.0.1:3001,ftp://backend"');
    expect(output).not.toContain("s3cret-word");
  });
});
