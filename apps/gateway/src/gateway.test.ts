import { once } from "node:events";
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
} from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBackend, type TestBackend } from "../../backend/src/testing/harness.ts";
import { createCompressionCache } from "./compression.ts";
import { createGateway, type GatewayOptions, MAX_BODY_BYTES, securityHeaders } from "./gateway.ts";
import { decoded, listen, open, rawGet, withOwnGateway } from "./test-http.ts";
import { startGatewayProcess } from "./testing.ts";

/** Stands in for the Astro server: echoes what it received, streams events on /events-probe. */
function startFrontendStandIn() {
  const seen: IncomingHttpHeaders[] = [];
  let releaseStream: () => void = () => {};
  const server = createServer((req, res) => {
    seen.push(req.headers);
    if (req.url === "/events-probe") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write('data: {"type":"first"}\n\n');
      releaseStream = () => res.end('data: {"type":"last"}\n\n');
      return;
    }
    if (req.url === "/missing") {
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(`<p>page ${req.url}</p>`);
  });
  return { server, seen, release: () => releaseStream() };
}

let backend: TestBackend;
let frontend: ReturnType<typeof startFrontendStandIn>;
let gatewayUrl: string;
let gateway: Server;

beforeAll(async () => {
  backend = await startTestBackend();
  frontend = startFrontendStandIn();
  const frontendUrl = await listen(frontend.server);
  gateway = createGateway({ backendUrl: backend.url, frontendUrl, version: "9.9.9-test" });
  gatewayUrl = await listen(gateway);
});
afterAll(async () => {
  gateway.closeAllConnections();
  gateway.close();
  frontend.server.closeAllConnections();
  frontend.server.close();
  await backend.close();
});

function expectSecurityHeaders(headers: Headers) {
  for (const [name, value] of Object.entries(securityHeaders)) expect(headers.get(name), name).toBe(value);
  expect(headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
}

describe("gateway", () => {
  it("answers /health itself with the version", async () => {
    const response = await fetch(`${gatewayUrl}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", version: "9.9.9-test" });
    expectSecurityHeaders(response.headers);
  });

  it.each([
    ["/api/v0/apikeys", 401],
    ["/doc", 200],
    ["/reference", 200],
    ["/rpc/apikeys/list", 401],
  ])("routes %s to the backend", async (path, status) => {
    const response = await fetch(gatewayUrl + path, { method: path.startsWith("/rpc") ? "POST" : "GET" });
    expect(response.status).toBe(status);
    expectSecurityHeaders(response.headers);
    await response.body?.cancel();
  });

  it("routes pages to the frontend, with security headers on its 404s too", async () => {
    const page = await fetch(`${gatewayUrl}/stacks?x=1`);
    expect(await page.text()).toBe("<p>page /stacks?x=1</p>");
    expectSecurityHeaders(page.headers);
    const missing = await fetch(`${gatewayUrl}/missing`);
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing.headers);
  });

  it("forwards X-Forwarded-For, -Proto and -Host, and ignores spoofed ones", async () => {
    await fetch(`${gatewayUrl}/forwarded`, {
      headers: { "x-forwarded-host": "evil.example", "x-forwarded-for": "203.0.113.9" },
    });
    const headers = frontend.seen.at(-1)!;
    expect(headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(headers["x-forwarded-proto"]).toBe("http");
    expect(headers["x-forwarded-host"]).toBe(new URL(gatewayUrl).host);
  });

  it("passes an event stream through while it is still open", async () => {
    const response = await fetch(`${gatewayUrl}/events-probe`);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    const first = await Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("event was buffered")), 2000)),
    ]);
    expect(new TextDecoder().decode(first.value)).toContain('"first"');
    expect(response.headers.get("content-encoding")).toBeNull();
    frontend.release();
    await reader.cancel();
  });

  it("drops idle connections to a target before the target's keep-alive timeout closes them", async () => {
    const connections: Socket[] = [];
    const target = createServer((_req, res) => res.end("ok"));
    // Node's default; its agent alone would keep the idle connection for 4 s (the hint minus 1 s).
    target.keepAliveTimeout = 5000;
    target.on("connection", (socket) => connections.push(socket));
    const targetUrl = await listen(target);
    const shortIdle = createGateway({
      backendUrl: targetUrl,
      frontendUrl: targetUrl,
      version: "x",
      idleConnectionMs: 300,
    });
    const shortIdleUrl = await listen(shortIdle);
    try {
      // The gateway frees its connection when the target's answer ends, before the client has it all.
      expect(await (await fetch(`${shortIdleUrl}/a`)).text()).toBe("ok");
      expect(await (await fetch(`${shortIdleUrl}/b`)).text()).toBe("ok");
      expect(connections).toHaveLength(1);
      // The gateway, not the target (5 s), closes the idle connection.
      await once(connections[0]!, "close");
      expect(await (await fetch(`${shortIdleUrl}/c`)).text()).toBe("ok");
      expect(connections).toHaveLength(2);
    } finally {
      shortIdle.closeAllConnections();
      shortIdle.close();
      target.closeAllConnections();
      target.close();
    }
  });

  it("answers a prompt 502 with security headers when a target is down", async () => {
    const closed = createServer();
    const deadUrl = await listen(closed);
    closed.close();
    const lonely = createGateway({ backendUrl: deadUrl, frontendUrl: deadUrl, version: "x" });
    const lonelyUrl = await listen(lonely);
    try {
      const started = performance.now();
      const response = await fetch(`${lonelyUrl}/api/v0/stacks`, { signal: AbortSignal.timeout(5000) });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(response.status).toBe(502);
      expect((await response.json()).message).toMatch(/backend is not reachable/);
      expectSecurityHeaders(response.headers);
      const page = await fetch(`${lonelyUrl}/`);
      expect(page.status).toBe(502);
      expect((await page.json()).message).toMatch(/frontend/);
    } finally {
      lonely.close();
    }
  });
});

/** Stands in for a backend: holds event streams open, answers anything else once its whole body is in. */
async function startHoldingTarget() {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url?.endsWith("/events")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
      return;
    }
    let bytes = 0;
    req.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on("end", () =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ bytes })),
    );
  });
  const url = await listen(server);
  return {
    url,
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Runs `use` against a gateway of its own in front of `target`. */
async function withGateway(
  target: string,
  options: Partial<GatewayOptions>,
  use: (url: string, gateway: Server) => Promise<void>,
) {
  return withOwnGateway({ backendUrl: target, frontendUrl: target, version: "x", ...options }, use);
}

async function readJson(response: IncomingMessage) {
  let text = "";
  for await (const chunk of response) text += chunk;
  return JSON.parse(text);
}

/** Writes `text` on a raw connection and resolves with everything the gateway sent until it closed. */
function rawExchange(url: string, text: string) {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
    socket.write(text);
  });
}

const keptAlive = new Agent({ keepAlive: true });

/**
 * POSTs `size` bytes with Transfer-Encoding: chunked over a kept-alive connection, like most clients;
 * resolves with the status, or the error code.
 */
function sendChunked(url: string, size: number) {
  return new Promise<number | string>((resolve) => {
    const outgoing = request(
      url,
      {
        method: "POST",
        agent: keptAlive,
        headers: { "content-type": "application/json", "transfer-encoding": "chunked", origin: gatewayUrl },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode!);
      },
    );
    outgoing.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    const chunk = Buffer.alloc(64 * 1024, " ");
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!outgoing.write(chunk)) {
          outgoing.once("drain", pump);
          return;
        }
      }
      outgoing.end();
    };
    pump();
  });
}

describe("gateway compression", () => {
  const page = `<!doctype html><main>${"<p>A row of the stack list, with its state and images.</p>".repeat(200)}</main>`;
  const script = `export const rows = [${Array.from({ length: 2000 }, (_, i) => `{id:${i},name:"stack-${i}"}`).join(",")}];`;
  const picture = Buffer.alloc(8192, 7);
  const assetRequests: string[] = [];
  let releaseStream: () => void = () => {};
  const assets = createServer((req, res) => {
    assetRequests.push(req.url ?? "");
    if (req.url === "/_astro/rows.Ab12Cd34.js")
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8", etag: '"rows-1"' }).end(script);
    else if (req.url === "/picture.png") res.writeHead(200, { "content-type": "image/png" }).end(picture);
    else if (req.url === "/tiny")
      res.writeHead(200, { "content-type": "text/html", "content-length": "11" }).end("<p>tiny</p>");
    else if (req.url === "/events") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${"x".repeat(4000)}\n\n`);
      releaseStream = () => res.end();
    } else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  });
  const cache = createCompressionCache();
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createGateway({
      backendUrl: backend.url,
      frontendUrl: await listen(assets),
      version: "x",
      compressionCache: cache,
    });
    url = await listen(server);
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
    assets.closeAllConnections();
    assets.close();
  });

  it("sends pages as brotli when the browser accepts it, gzip otherwise, as is without Accept-Encoding", async () => {
    const brotli = await rawGet(`${url}/stacks`, "gzip, deflate, br, zstd");
    expect(brotli.headers["content-encoding"]).toBe("br");
    expect(brotli.headers.vary).toContain("Accept-Encoding");
    expect(decoded(brotli)).toBe(page);
    expect(brotli.body.length).toBeLessThan(page.length / 10);
    expect(brotli.headers["content-security-policy"]).toBe(securityHeaders["content-security-policy"]);

    const gzipped = await rawGet(`${url}/stacks`, "gzip, br;q=0");
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(decoded(gzipped)).toBe(page);

    const plain = await rawGet(`${url}/stacks`);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toContain("Accept-Encoding");
    expect(plain.body.toString("utf8")).toBe(page);
  });

  it("compresses the backend's JSON too", async () => {
    const doc = await rawGet(`${url}/doc`, "br");
    expect(doc.headers["content-encoding"]).toBe("br");
    expect(JSON.parse(decoded(doc)).info.title).toBe("Stackgate API");
  });

  it("compresses a hashed asset once per encoding and lets browsers keep it for a year", async () => {
    const before = cache.compressions;
    const answers = [];
    for (let visit = 0; visit < 3; visit++)
      answers.push(await rawGet(`${url}/_astro/rows.Ab12Cd34.js`, "br"));
    const gzipped = await rawGet(`${url}/_astro/rows.Ab12Cd34.js`, "gzip");
    expect(cache.compressions - before).toBe(2);
    for (const answer of [...answers, gzipped]) {
      expect(answer.status).toBe(200);
      expect(answer.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(answer.headers.vary).toContain("Accept-Encoding");
      expect(Number(answer.headers["content-length"])).toBe(answer.body.length);
      expect(decoded(answer)).toBe(script);
    }
    expect(answers.map((answer) => answer.headers["content-encoding"])).toEqual(["br", "br", "br"]);
    expect(answers[1]!.body.equals(answers[0]!.body)).toBe(true);
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    // The encoded bytes are another representation of the asset: only a weak validator fits them.
    expect(answers[0]!.headers.etag).toBe('W/"rows-1"');
    // The frontend is still asked every time: status codes and conditional requests stay its own.
    expect(assetRequests.filter((path) => path.startsWith("/_astro/"))).toHaveLength(4);
  });

  it("leaves images, tiny answers and HEAD requests as they are", async () => {
    const image = await rawGet(`${url}/picture.png`, "br");
    expect(image.headers["content-encoding"]).toBeUndefined();
    expect(image.body.equals(picture)).toBe(true);
    const tiny = await rawGet(`${url}/tiny`, "br");
    expect(tiny.headers["content-encoding"]).toBeUndefined();
    expect(tiny.body.toString()).toBe("<p>tiny</p>");
    const head = await fetch(`${url}/stacks`, { method: "HEAD", headers: { "accept-encoding": "br" } });
    expect(head.headers.get("content-encoding")).toBeNull();
  });

  it("never compresses an event stream, whose first event arrives while it is still open", async () => {
    const first = await new Promise<{ headers: IncomingHttpHeaders; chunk: string }>((resolve, reject) => {
      const call = request(`${url}/events`, { headers: { "accept-encoding": "br, gzip" } }, (res) => {
        res.once("data", (chunk: Buffer) => resolve({ headers: res.headers, chunk: chunk.toString("utf8") }));
      });
      call.on("error", reject);
      call.end();
    });
    expect(first.headers["content-encoding"]).toBeUndefined();
    expect(first.chunk.startsWith("data: xxx")).toBe(true);
    releaseStream();
  });
});

/**
 * Sends `path` exactly as written (fetch and `request(url)` would normalise it) and resolves with
 * the status and the body; an event stream's status once its head is in.
 */
function sendAsWritten(url: string, method: string, path: string) {
  return new Promise<{ status: number; contentType: string; body: string }>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const outgoing = request(
      { hostname, port, method, path, agent: false, headers: { "content-type": "application/json" } },
      (answer) => {
        const contentType = answer.headers["content-type"] ?? "";
        const result = { status: answer.statusCode!, contentType, body: "" };
        if (contentType.startsWith("text/event-stream")) {
          answer.destroy();
          resolve(result);
          return;
        }
        answer.setEncoding("utf8");
        answer.on("data", (chunk: string) => {
          result.body += chunk;
        });
        answer.on("end", () => resolve(result));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(method === "POST" ? "{}" : undefined);
  });
}

/**
 * The event streams' and the deploys' paths, spelt otherwise: the backend serves most of these as the
 * path itself (its router drops a trailing slash, resolves dot segments, decodes `%65`).
 */
const OTHER_SPELLINGS: Array<[method: string, target: string, canonical: string]> = [
  ["GET", "/api/v0/deploy/events/", "/api/v0/deploy/events"],
  ["GET", "/api/v0/deploy/events/.", "/api/v0/deploy/events"],
  ["GET", "/api/v0/deploy/events/?since=now", "/api/v0/deploy/events"],
  ["GET", "/api/v0//deploy/events", "/api/v0/deploy/events"],
  ["GET", "/api/v0/deploy//events", "/api/v0/deploy/events"],
  ["GET", "//api/v0/deploy/events", "/api/v0/deploy/events"],
  ["GET", "/api/v0/deploy/./events", "/api/v0/deploy/events"],
  ["GET", "/api/v0/deploy/runs/../events", "/api/v0/deploy/events"],
  ["GET", "/api/v0/deploy/%2e/events", "/api/v0/deploy/events"],
  ["GET", "/api/v0/deploy/%65vents", "/api/v0/deploy/events"],
  ["GET", "/api/v0/%64eploy/%45vents", "/api/v0/deploy/Events"],
  ["GET", "/%61pi/v0/deploy/events", "/api/v0/deploy/events"],
  ["GET", "/api/v0/deploy\\events", "/api/v0/deploy/events"],
  ["GET", "/api/v0/deploy/events#top", "/api/v0/deploy/events"],
  ["GET", "http://x/api/v0/deploy/events", "/api/v0/deploy/events"],
  ["POST", "/rpc/deploy/events/", "/rpc/deploy/events"],
  ["POST", "/rpc/deploy/%65vents", "/rpc/deploy/events"],
  ["POST", "/api/v0/deploy/", "/api/v0/deploy"],
  ["POST", "/api/v0/deploy/.", "/api/v0/deploy"],
  ["POST", "/api/v0//deploy", "/api/v0/deploy"],
  ["POST", "/rpc/deploy/run/", "/rpc/deploy/run"],
  ["POST", "/rpc/deploy/%72un", "/rpc/deploy/run"],
];

describe("gateway paths", () => {
  it.each(OTHER_SPELLINGS)(
    "refuses %s %s with a 400 naming %s, before the backend hears of it",
    async (method, target, canonical) => {
      const holding = await startHoldingTarget();
      await withGateway(holding.url, {}, async (url) => {
        const answer = await sendAsWritten(url, method, target);
        expect(answer.status).toBe(400);
        expect(JSON.parse(answer.body)).toEqual({
          code: "NON_CANONICAL_PATH",
          status: 400,
          message: expect.stringContaining(`use ${canonical}`),
        });
        expect(holding.seen).toEqual([]);
      }).finally(holding.close);
    },
  );

  it("answers the same in front of the real backend, which would otherwise serve most of them", async () => {
    for (const [method, target] of OTHER_SPELLINGS) {
      const answer = await sendAsWritten(gatewayUrl, method, target);
      expect(answer.status, `${method} ${target}`).toBe(400);
      expect(answer.contentType).toBe("application/json; charset=utf-8");
    }
  });

  it("counts every stream against one limit: 40 on the trailing slash open none, the 21st on the path gets 429", async () => {
    const holding = await startHoldingTarget();
    await withGateway(holding.url, {}, async (url) => {
      const slashed = await Promise.all(
        Array.from({ length: 40 }, () => open(`${url}/api/v0/deploy/events/`)),
      );
      expect(slashed.map((answer) => answer.statusCode)).toEqual(Array(40).fill(400));
      const streams = await Promise.all(
        Array.from({ length: 20 }, () => open(`${url}/api/v0/deploy/events`)),
      );
      expect(streams.map((answer) => answer.statusCode)).toEqual(Array(20).fill(200));
      expect((await open(`${url}/api/v0/deploy/events?x=1`)).statusCode).toBe(429);
      expect((await open(`${url}/api/v0/deploy/events/`)).statusCode).toBe(400);
      for (const stream of streams) stream.destroy();
    }).finally(holding.close);
  });

  it("passes the dashboard's pages on as written: only what the gateway itself routes must be canonical", async () => {
    for (const path of ["/stacks/", "/stacks/web%2Dapi", "/history/./x"]) {
      const answer = await sendAsWritten(gatewayUrl, "GET", path);
      expect(answer.status, path).toBe(200);
      expect(answer.body).toBe(`<p>page ${path}</p>`);
    }
  });
});

describe("gateway under floods", () => {
  it("keeps answering ordinary requests while 300 event streams are open", async () => {
    const target = await startHoldingTarget();
    await withGateway(target.url, { streamsPerClient: 1000 }, async (url) => {
      const streams = await Promise.all(
        Array.from({ length: 300 }, () => open(`${url}/api/v0/deploy/events`)),
      );
      expect(streams.filter((stream) => stream.statusCode === 200)).toHaveLength(300);
      const answer = await fetch(`${url}/api/v0/stacks`, { signal: AbortSignal.timeout(5000) });
      expect(answer.status).toBe(200);
      for (const stream of streams) stream.destroy();
    }).finally(target.close);
  });

  it("reads bodies before sending them on: 300 trickling uploads hold no connection to the backend", async () => {
    const target = await startHoldingTarget();
    await withGateway(target.url, {}, async (url, own) => {
      let requests = 0;
      own.on("request", () => requests++);
      const port = Number(new URL(url).port);
      const uploads = Array.from({ length: 300 }, () =>
        connect(port, "127.0.0.1").end(
          "POST /api/auth/sign-in/email HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{",
        ),
      );
      await expect.poll(() => requests, { timeout: 10_000 }).toBe(300);
      const answer = await fetch(`${url}/api/v0/stacks`, { signal: AbortSignal.timeout(5000) });
      expect(answer.status).toBe(200);
      expect(target.seen).toEqual(["GET /api/v0/stacks"]);
      for (const upload of uploads) upload.destroy();
    }).finally(target.close);
  });

  it("limits open event streams per client with a 429 naming the limit, REST and RPC alike", async () => {
    const target = await startHoldingTarget();
    await withGateway(target.url, { streamsPerClient: 2 }, async (url) => {
      const events = `${url}/api/v0/deploy/events`;
      const first = await open(events);
      const second = await open(`${url}/rpc/deploy/events`, { method: "POST" });
      expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
      const refused = await open(events);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["x-frame-options"]).toBe("DENY");
      expect(await readJson(refused)).toMatchObject({
        code: "TOO_MANY_REQUESTS",
        message: expect.stringMatching(/At most 2 open event streams per client/),
      });
      expect((await open(`${url}/rpc/deploy/events`, { method: "POST" })).statusCode).toBe(429);
      expect((await open(events, { localAddress: "127.0.0.2" })).statusCode).toBe(200);
      expect((await fetch(`${url}/api/v0/stacks`)).status).toBe(200);
      first.destroy();
      await expect
        .poll(async () => {
          const again = await open(events);
          again.destroy();
          return again.statusCode;
        })
        .toBe(200);
      second.destroy();
    }).finally(target.close);
  });

  it("counts streams per X-Forwarded-For address only behind a trusted proxy", async () => {
    const target = await startHoldingTarget();
    const forwardedFor = (address: string) => ({ headers: { "x-forwarded-for": address } });
    await withGateway(target.url, { streamsPerClient: 1, trustProxy: true }, async (url) => {
      const events = `${url}/api/v0/deploy/events`;
      expect((await open(events, forwardedFor("198.51.100.1"))).statusCode).toBe(200);
      expect((await open(events, forwardedFor("198.51.100.2"))).statusCode).toBe(200);
      // The proxy appends the address it saw; what the client wrote before it does not count.
      expect((await open(events, forwardedFor("10.9.9.9, 198.51.100.1"))).statusCode).toBe(429);
    });
    await withGateway(target.url, { streamsPerClient: 1 }, async (url) => {
      const events = `${url}/api/v0/deploy/events`;
      expect((await open(events, forwardedFor("198.51.100.1"))).statusCode).toBe(200);
      expect((await open(events, forwardedFor("198.51.100.2"))).statusCode).toBe(429);
    }).finally(target.close);
  });

  it("answers 408 JSON to request headers that do not arrive in time", async () => {
    const target = await startHoldingTarget();
    await withGateway(target.url, { headersTimeoutMs: 300 }, async (url) => {
      const answer = await rawExchange(url, "GET /api/v0/stacks HTTP/1.1\r\nhost: x\r\n");
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain("x-frame-options: DENY");
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({
        code: "REQUEST_TIMEOUT",
      });
      expect(target.seen).toEqual([]);
    }).finally(target.close);
  });

  it("answers 408 JSON to a body that trickles, without bothering the backend", async () => {
    const target = await startHoldingTarget();
    await withGateway(target.url, { bodyTimeoutMs: 300 }, async (url) => {
      const answer = await rawExchange(
        url,
        "POST /api/auth/sign-in/email HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{",
      );
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/"message":"The request body did not arrive within 0.3 s"/);
      expect(target.seen).toEqual([]);
    }).finally(target.close);
  });

  it("refuses bodies over 1 MiB itself with 413, declared or chunked, and passes 1 MiB on whole", async () => {
    const target = await startHoldingTarget();
    await withGateway(target.url, {}, async (url) => {
      const declared = await fetch(`${url}/api/v0/apikeys`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "x".repeat(MAX_BODY_BYTES + 1),
      });
      expect(declared.status).toBe(413);
      expect(await declared.json()).toMatchObject({
        code: "PAYLOAD_TOO_LARGE",
        message: expect.stringMatching(/1 MiB/),
      });
      expect(await sendChunked(`${url}/api/v0/apikeys`, 2 * MAX_BODY_BYTES)).toBe(413);
      expect(target.seen).toEqual([]);

      const whole = await fetch(`${url}/api/v0/apikeys`, {
        method: "POST",
        body: new Blob(["x".repeat(MAX_BODY_BYTES)]).stream(),
        duplex: "half",
      } as RequestInit);
      expect(await whole.json()).toEqual({ bytes: MAX_BODY_BYTES });
    }).finally(target.close);
  });

  it("answers 413, never a 502, to 2 MiB chunked bodies in front of the real backend", async () => {
    const outcomes = [];
    for (let attempt = 0; attempt < 30; attempt++)
      outcomes.push(await sendChunked(`${gatewayUrl}/api/v0/apikeys`, 2 * MAX_BODY_BYTES));
    expect(outcomes).toEqual(Array(30).fill(413));
  });
});

describe("gateway readiness", () => {
  it("is ready while the backend answers", async () => {
    const response = await fetch(`${gatewayUrl}/health/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", version: "9.9.9-test" });
    expectSecurityHeaders(response.headers);
  });

  it("answers 503 naming the backend while it is down, and /health stays alive", async () => {
    const closed = createServer();
    const deadUrl = await listen(closed);
    closed.close();
    await withGateway(deadUrl, {}, async (url) => {
      const response = await fetch(`${url}/health/ready`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({
        code: "SERVICE_UNAVAILABLE",
        message: `The backend (${deadUrl}) is not reachable (ECONNREFUSED)`,
      });
      expect((await fetch(`${url}/health`)).status).toBe(200);
    });
  });

  it("answers 503 when the backend does not answer in time", async () => {
    const silent = createServer(() => {});
    const silentUrl = await listen(silent);
    await withGateway(silentUrl, { readyTimeoutMs: 200 }, async (url) => {
      const response = await fetch(`${url}/health/ready`);
      expect(response.status).toBe(503);
      expect((await response.json()).message).toMatch(/not reachable \(no answer within 200 ms\)/);
    }).finally(() => {
      silent.closeAllConnections();
      silent.close();
    });
  });
});

describe("gateway start-up errors", () => {
  it("says in one line that the port is taken and what to do", async () => {
    const holder = createServer();
    const port = new URL(await listen(holder)).port;
    try {
      const { code, output } = await startGatewayProcess({ PORT: port });
      expect(code).toBe(78);
      expect(output).toBe(
        `The gateway cannot start: port ${port} (PORT) is already in use: stop the program holding it, or set PORT to a free port.`,
      );
    } finally {
      holder.close();
    }
  });

  it.each([
    ["PORT", "http"],
    ["BACKEND_URL", "ftp://backend"],
    ["MAX_STREAMS_PER_CLIENT", "0"],
    ["REQUEST_BODY_TIMEOUT_SECONDS", "soon"],
  ])("names an invalid %s in one line", async (name, value) => {
    const { code, output } = await startGatewayProcess({ PORT: "0", [name]: value });
    expect(code).toBe(78);
    expect(output.split("\n")).toHaveLength(1);
    expect(output).toMatch(
      new RegExp(`^The gateway cannot start: ${name} .*"${value}".*fix or unset it\\.$`),
    );
  });
});
