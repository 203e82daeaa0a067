/**
 * The gateway with its targets in its own process (the whole service as one process): what it does
 * for targets over HTTP (gateway.test.ts) holds when it hands requests to their listeners directly.
 */
import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readiness } from "../../backend/src/http.ts";
import { createBackendListener } from "../../backend/src/serve.ts";
import { ADMIN, APP_ORIGIN, startTestBackend, type TestBackend } from "../../backend/src/testing/harness.ts";
import { createCompressionCache } from "./compression.ts";
import { createGateway, type GatewayOptions, MAX_BODY_BYTES, securityHeaders } from "./gateway.ts";
import type { InProcessTarget } from "./in-process.ts";
import { decoded, listen, open, rawGet, withOwnGateway } from "./test-http.ts";

const page = `<!doctype html><main>${"<p>A row of the stack list, with its state and images.</p>".repeat(200)}</main>`;
const script = `export const rows = [${Array.from({ length: 2000 }, (_, i) => `{id:${i},name:"stack-${i}"}`).join(",")}];`;
const picture = Buffer.alloc(8192, 7);

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

/**
 * Stands in for the dashboard's server as a listener: records what it was handed (with the body it
 * finds where Astro looks, `req.body`), answers pages, assets, an event stream, and answers written the
 * ways Node's response allows (setHeader and writeHead, implicit heads, a length without a header).
 */
function dashboardStandIn() {
  const seen: Seen[] = [];
  const assetRequests: string[] = [];
  let releaseStream: () => void = () => {};
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const body = (req as IncomingMessage & { body?: Buffer }).body;
    seen.push({
      url: req.url ?? "",
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: String(body ?? ""),
    });
    const path = req.url ?? "";
    if (path.startsWith("/_astro/")) assetRequests.push(path);
    if (path === "/_astro/rows.Ab12Cd34.js") {
      // As `send` serves Astro's assets: headers set one by one, the body written in pieces.
      res.setHeader("content-type", "text/javascript; charset=utf-8");
      res.setHeader("etag", '"rows-1"');
      res.setHeader("content-length", String(Buffer.byteLength(script)));
      res.write(script.slice(0, 1000));
      res.end(script.slice(1000));
    } else if (path === "/picture.png") res.writeHead(200, { "content-type": "image/png" }).end(picture);
    else if (path === "/tiny") {
      // Hono's adapter declares a known length without a header.
      (res as ServerResponse & { _contentLength: number })._contentLength = 11;
      res.writeHead(200, { "content-type": "text/html" }).end("<p>tiny</p>");
    } else if (path === "/missing")
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
    else if (path === "/events-probe") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(`data: {"type":"first","padding":"${"x".repeat(4000)}"}\n\n`);
      releaseStream = () => res.end('data: {"type":"last"}\n\n');
    } else if (path === "/implicit") {
      res.statusCode = 201;
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.setHeader("connection", "keep-alive");
      res.end(page);
    } else if (path === "/array-head") {
      res.writeHead(200, ["content-type", "text/html", "set-cookie", "a=1", "set-cookie", "b=2"]);
      res.end(page);
    } else if (path === "/throws") throw new Error("the page blew up");
    else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  };
  return { handle, seen, assetRequests, release: () => releaseStream() };
}

/** Stands in for a backend: holds event streams open, answers anything else with its body's size. */
function holdingStandIn() {
  const seen: string[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url?.endsWith("/events")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
      return;
    }
    const rawBody = (req as IncomingMessage & { rawBody?: Buffer }).rawBody;
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ bytes: rawBody?.length ?? 0 }));
  };
  return { seen, target: { handle } satisfies InProcessTarget };
}

let backend: TestBackend;
let dashboard: ReturnType<typeof dashboardStandIn>;
const cache = createCompressionCache();
let gateway: Server;
let url: string;

beforeAll(async () => {
  backend = await startTestBackend();
  const answers = createBackendListener(backend.backend);
  dashboard = dashboardStandIn();
  gateway = createGateway({
    backend: { handle: answers.listener, notReady: () => (readiness.draining ? "stopping" : undefined) },
    frontend: { handle: dashboard.handle },
    version: "9.9.9-test",
    compressionCache: cache,
  });
  url = await listen(gateway);
});
afterAll(async () => {
  gateway.closeAllConnections();
  gateway.close();
  await backend.close();
});

function expectSecurityHeaders(headers: Headers | IncomingHttpHeaders) {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]);
  for (const [name, value] of Object.entries(securityHeaders)) expect(get(name), name).toBe(value);
}

/** Runs `use` against a gateway of its own with in-process targets. */
async function withGateway(
  targets: { backend: InProcessTarget; frontend?: InProcessTarget },
  options: Partial<GatewayOptions>,
  use: (url: string) => Promise<void>,
) {
  return withOwnGateway(
    { frontend: targets.backend, ...targets, version: "x", ...options } as GatewayOptions,
    use,
  );
}

describe("the gateway with targets in its own process", () => {
  it("answers /health itself, and /health/ready by the backend's readiness", async () => {
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: "ok", version: "9.9.9-test" });
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    expectSecurityHeaders(ready.headers);
    let reason: string | undefined = "stopping";
    await withGateway({ backend: { handle: () => {}, notReady: () => reason } }, {}, async (own) => {
      const draining = await fetch(`${own}/health/ready`);
      expect(draining.status).toBe(503);
      expect(await draining.json()).toMatchObject({
        code: "SERVICE_UNAVAILABLE",
        message: "The backend is not taking requests (stopping)",
      });
      expect((await fetch(`${own}/health`)).status).toBe(200);
      reason = undefined;
      expect((await fetch(`${own}/health/ready`)).status).toBe(200);
    });
  });

  it.each([
    ["/api/v0/apikeys", 401],
    ["/doc", 200],
    ["/reference", 200],
    ["/rpc/apikeys/list", 401],
  ])("hands %s to the backend's listener", async (path, status) => {
    const response = await fetch(url + path, { method: path.startsWith("/rpc") ? "POST" : "GET" });
    expect(response.status).toBe(status);
    expectSecurityHeaders(response.headers);
    await response.body?.cancel();
  });

  it("hands pages to the dashboard's listener, with security headers on its 404s too", async () => {
    const found = await fetch(`${url}/stacks?x=1`);
    expect(await found.text()).toBe(page);
    expectSecurityHeaders(found.headers);
    const missing = await fetch(`${url}/missing`);
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing.headers);
  });

  it("signs in through the backend with the body the gateway read, and the session works", async () => {
    const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: APP_ORIGIN },
      body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers
      .getSetCookie()
      .map((each) => each.split(";")[0])
      .join("; ");
    const me = await fetch(`${url}/api/v0/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: ADMIN.email });
  });

  it("gives the target the forwarding headers, its raw headers to match, and the body where Astro looks", async () => {
    await fetch(`${url}/form`, {
      method: "POST",
      headers: {
        "x-forwarded-host": "evil.example",
        "x-forwarded-for": "203.0.113.9",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "email=a%40b.c&password=x",
    });
    const { headers, rawHeaders, body } = dashboard.seen.at(-1)!;
    expect(headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(headers["x-forwarded-proto"]).toBe("http");
    expect(headers["x-forwarded-host"]).toBe(new URL(url).host);
    expect(headers.connection).toBeUndefined();
    expect(headers["content-length"]).toBe(String(body.length));
    expect(body).toBe("email=a%40b.c&password=x");
    // Hono's adapter reads the raw headers: they say the same.
    const raw = new Map<string, string>();
    for (let index = 0; index < rawHeaders.length; index += 2)
      raw.set(rawHeaders[index]!, rawHeaders[index + 1]!);
    expect(raw.get("x-forwarded-for")).toBe("127.0.0.1");
    expect(raw.get("x-forwarded-host")).toBe(new URL(url).host);
  });

  it("answers 502 with security headers when a target fails before answering", async () => {
    const answer = await fetch(`${url}/throws`);
    expect(answer.status).toBe(502);
    expect((await answer.json()).message).toMatch(/frontend is not reachable \(the page blew up\)/);
    expectSecurityHeaders(answer.headers);
  });

  it("refuses a path the gateway routes when it is not written canonically", async () => {
    const answer = await rawGet(`${url}/api/v0/deploy/%65vents`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ code: "NON_CANONICAL_PATH" });
  });
});

describe("compression of what targets in the process answer", () => {
  it("sends pages as brotli when the browser accepts it, gzip otherwise, as is without Accept-Encoding", async () => {
    const brotli = await rawGet(`${url}/stacks`, "gzip, deflate, br, zstd");
    expect(brotli.headers["content-encoding"]).toBe("br");
    expect(brotli.headers.vary).toContain("Accept-Encoding");
    expect(brotli.headers["content-length"]).toBeUndefined();
    expect(decoded(brotli)).toBe(page);
    expect(brotli.body.length).toBeLessThan(page.length / 10);
    expectSecurityHeaders(brotli.headers);
    const gzipped = await rawGet(`${url}/stacks`, "gzip, br;q=0");
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(decoded(gzipped)).toBe(page);
    const plain = await rawGet(`${url}/stacks`);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString("utf8")).toBe(page);
  });

  it("compresses answers with an implicit head or a head given as an array, dropping hop-by-hop headers", async () => {
    const implicit = await rawGet(`${url}/implicit`, "br");
    expect(implicit.status).toBe(201);
    expect(implicit.headers["content-encoding"]).toBe("br");
    expect(decoded(implicit)).toBe(page);
    expectSecurityHeaders(implicit.headers);
    const array = await rawGet(`${url}/array-head`, "gzip");
    expect(array.headers["content-encoding"]).toBe("gzip");
    expect(array.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(decoded(array)).toBe(page);
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
    const plain = await rawGet(`${url}/_astro/rows.Ab12Cd34.js`);
    expect(cache.compressions - before).toBe(2);
    for (const answer of [...answers, gzipped]) {
      expect(answer.status).toBe(200);
      expect(answer.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(Number(answer.headers["content-length"])).toBe(answer.body.length);
      expect(decoded(answer)).toBe(script);
    }
    expect(answers.map((answer) => answer.headers["content-encoding"])).toEqual(["br", "br", "br"]);
    expect(answers[0]!.headers.etag).toBe('W/"rows-1"');
    expect(plain.body.toString()).toBe(script);
    expect(plain.headers.etag).toBe('"rows-1"');
    // The dashboard is still asked every time: status codes and conditional requests stay its own.
    expect(dashboard.assetRequests.filter((path) => path.startsWith("/_astro/rows"))).toHaveLength(5);
  });

  it("leaves images, tiny answers (a length without a header too) and HEAD requests as they are", async () => {
    const image = await rawGet(`${url}/picture.png`, "br");
    expect(image.headers["content-encoding"]).toBeUndefined();
    expect(image.body.equals(picture)).toBe(true);
    const tiny = await rawGet(`${url}/tiny`, "br");
    expect(tiny.headers["content-encoding"]).toBeUndefined();
    expect(tiny.headers["content-length"]).toBe("11");
    expect(tiny.body.toString()).toBe("<p>tiny</p>");
    const head = await rawGet(`${url}/stacks`, "br", "HEAD");
    expect(head.headers["content-encoding"]).toBeUndefined();
  });

  it("passes an event stream through unbuffered and uncompressed, with the stream headers", async () => {
    const first = await new Promise<{ headers: IncomingHttpHeaders; chunk: string }>((resolve, reject) => {
      const call = request(`${url}/events-probe`, { headers: { "accept-encoding": "br, gzip" } }, (res) => {
        res.once("data", (chunk: Buffer) => resolve({ headers: res.headers, chunk: chunk.toString("utf8") }));
      });
      call.on("error", reject);
      call.end();
    });
    expect(first.headers["content-encoding"]).toBeUndefined();
    expect(first.headers["x-accel-buffering"]).toBe("no");
    expect(first.headers["cache-control"]).toBe("no-cache, no-transform");
    expectSecurityHeaders(first.headers);
    expect(first.chunk).toContain('"type":"first"');
    dashboard.release();
  });
});

describe("limits for targets in the process", () => {
  it("limits open event streams per client with a 429 naming the limit", async () => {
    const stand = holdingStandIn();
    await withGateway({ backend: stand.target }, { streamsPerClient: 2 }, async (own) => {
      const events = `${own}/api/v0/deploy/events`;
      const first = await open(events);
      const second = await open(`${own}/rpc/deploy/events`, { method: "POST" });
      expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
      const refused = await open(events);
      expect(refused.statusCode).toBe(429);
      refused.resume();
      first.destroy();
      await expect
        .poll(async () => {
          const again = await open(events);
          again.destroy();
          return again.statusCode;
        })
        .toBe(200);
      second.destroy();
    });
  });

  it("refuses bodies over 1 MiB itself with 413, and hands 1 MiB over whole", async () => {
    const stand = holdingStandIn();
    await withGateway({ backend: stand.target }, {}, async (own) => {
      const declared = await fetch(`${own}/api/v0/apikeys`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "x".repeat(MAX_BODY_BYTES + 1),
      });
      expect(declared.status).toBe(413);
      expect(stand.seen).toEqual([]);
      const whole = await fetch(`${own}/api/v0/apikeys`, {
        method: "POST",
        body: new Blob(["x".repeat(MAX_BODY_BYTES)]).stream(),
        duplex: "half",
      } as RequestInit);
      expect(await whole.json()).toEqual({ bytes: MAX_BODY_BYTES });
    });
  });

  it("answers 408 to a body that trickles, without handing it to the target", async () => {
    const stand = holdingStandIn();
    await withGateway({ backend: stand.target }, { bodyTimeoutMs: 300 }, async (own) => {
      const answer = await new Promise<number>((resolve, reject) => {
        const call = request(
          `${own}/api/auth/sign-in/email`,
          { method: "POST", headers: { "content-type": "application/json", "content-length": "100" } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        call.on("error", reject);
        call.write("{");
      });
      expect(answer).toBe(408);
      expect(stand.seen).toEqual([]);
    });
  });
});
