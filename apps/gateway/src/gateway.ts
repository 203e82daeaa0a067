import { Agent, createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { canonicalPath, nonCanonicalPathMessage } from "@stackgate/contract/site-path.ts";
// One copy for both processes: the gateway's single-file build takes it in like any other import.
import { createMemoryRelease } from "../../backend/src/platform/memory-release.ts";
import { createBackendPool, probe, READINESS_PATH } from "./backends.ts";
import { type CompressionCache, createCompressionCache, sendCompressed } from "./compression.ts";
import { forwardEventStream, forwardRequest } from "./forward.ts";
import { handOver, type InProcessTarget } from "./in-process.ts";

export interface GatewayOptions {
  /** One backend (`BACKEND_URL`); `backendUrls` takes its place when given. */
  backendUrl?: string;
  /** Several backends behaving as one service (`BACKEND_URLS`): requests are spread over the ready ones. */
  backendUrls?: string[];
  /**
   * The backend in this process (the whole service as one process): requests are handed to its
   * listener directly; `backendUrl` and `backendUrls` are then unused.
   */
  backend?: InProcessTarget;
  /** How often each of several backends is asked whether it is ready. */
  healthIntervalMs?: number;
  /** Time a backend has to answer that question. */
  healthTimeoutMs?: number;
  /** The dashboard's server over HTTP; `frontend` takes its place when given. */
  frontendUrl?: string;
  /** The dashboard's server in this process. */
  frontend?: InProcessTarget;
  version: string;
  /** Keep X-Forwarded-Host/Proto set by a reverse proxy in front of us instead of overwriting them. */
  trustProxy?: boolean;
  /** How long a kept-alive connection to a target may sit idle; below the targets' keep-alive timeout. */
  idleConnectionMs?: number;
  /** Open event streams allowed per client address. */
  streamsPerClient?: number;
  /** Time a client has to send its request headers. */
  headersTimeoutMs?: number;
  /** Time a client has to send its request body, once the headers are in. */
  bodyTimeoutMs?: number;
  /** Time a target has to accept a connection before the next one is tried. */
  connectTimeoutMs?: number;
  /** Time the backend has to answer the readiness probe. */
  readyTimeoutMs?: number;
  /** Where compressed assets are kept (a fresh one by default). */
  compressionCache?: CompressionCache;
}

/** The backend's own limit (apps/backend/src/http.ts); the gateway enforces it before a byte reaches it. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** What a client may still send after its body was refused, so that it reads the answer, not a reset. */
const DRAIN_AFTER_REFUSAL_BYTES = 8 * MAX_BODY_BYTES;
const DRAIN_AFTER_REFUSAL_MS = 5000;

const contentSecurityPolicy = [
  "default-src 'self'",
  // No inline script but Astro's own, by hash: the island bootstrap (production and development
  // builds) and its client:load/idle/visible/media/only directives. They change with Astro's version;
  // apps/frontend/src/lib/gateway-csp.test.ts names the hashes to put here then.
  [
    "script-src 'self'",
    "'sha256-Ya0pUYrC7nM5Cn/056TyVuEiz6dFGrzmkWzgON0pF0U='",
    "'sha256-SHXg3YtOAVshUMT3f+eElYDgbV0kaujWj8DSaXSS4Vs='",
    "'sha256-QzWFZi+FLIx23tnm9SBU4aEgx4x8DsuASP07mfqol/c='",
    "'sha256-BF0290pkb3jxQsE7z00xR8Imp8X34FLC88L0lkMnrGw='",
    "'sha256-Q2BPg90ZMplYY+FSdApNErhpWafg2hcRRbndmvxuL/Q='",
    "'sha256-0chmwFk0zaA528yFfGV7J9ppIpdfTPPULncDF3WG7Zs='",
    "'sha256-eIXWvAmxkr251LJZkjniEK5LcPF3NkapbJepohwYRIc='",
  ].join(" "),
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

export const securityHeaders: Record<string, string> = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
  "cross-origin-opener-policy": "same-origin",
};

const BACKEND_PREFIXES = ["/api/", "/rpc/", "/reference/"];
const BACKEND_PATHS = new Set(["/doc", "/reference", "/metrics"]);

/** Long-lived answers: the REST event stream and the dashboard's oRPC subscription. */
const EVENT_STREAM_PATHS = new Set(["/api/v0/deploy/events", "/rpc/deploy/events"]);

export function routeFor(pathname: string): "backend" | "frontend" | "health" | "ready" {
  if (pathname === "/health") return "health";
  if (pathname === "/health/ready") return "ready";
  if (BACKEND_PATHS.has(pathname) || BACKEND_PREFIXES.some((prefix) => pathname.startsWith(prefix)))
    return "backend";
  return "frontend";
}

const jsonHeaders = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extraHeaders: Record<string, string> = {},
) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(securityHeaders)) res.setHeader(name, value);
  res.writeHead(status, { ...jsonHeaders, ...extraHeaders });
  res.end(JSON.stringify(body));
}

const errorBody = (code: string, status: number, message: string) => ({ code, status, message });

/**
 * A whole answer written straight to the socket, for errors Node's parser raises before there is a
 * request object (slow or malformed headers).
 */
function writeRawJson(socket: Duplex, status: number, statusText: string, body: unknown) {
  const payload = JSON.stringify(body);
  const headers = { ...securityHeaders, ...jsonHeaders, connection: "close" };
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")}content-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
    // Closed, not half-closed: a client that never hangs up must not keep the file descriptor.
    () => socket.destroy(),
  );
}

/**
 * Who is asking, for per-client limits. Behind a trusted proxy, the last X-Forwarded-For entry: the
 * address that proxy saw (earlier entries are whatever the client chose to send).
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = trustProxy
    ? String(req.headers["x-forwarded-for"] ?? "")
        .split(",")
        .at(-1)
        ?.trim()
    : "";
  return (forwarded || req.socket.remoteAddress || "unknown").replace(/^::ffff:/, "");
}

/** Open event streams per client address. */
function streamCounter(limit: number) {
  const open = new Map<string, number>();
  return {
    /** Counts a new stream for `client` until `res` closes; false when the client is at its limit. */
    admit(client: string, res: ServerResponse): boolean {
      const count = open.get(client) ?? 0;
      if (count >= limit) return false;
      open.set(client, count + 1);
      res.once("close", () => {
        const remaining = (open.get(client) ?? 1) - 1;
        if (remaining === 0) open.delete(client);
        else open.set(client, remaining);
      });
      return true;
    },
  };
}

type BodyOutcome = { body: Buffer } | { refused: 408 | 413 };

/**
 * Reads the whole request body before anything is sent on: a client that trickles its body holds
 * only its own connection to the gateway, never one to the backend. Refuses a body over the limit
 * (declared or counted, chunked or not) and one that does not arrive in time.
 */
function readBody(req: IncomingMessage, timeoutMs: number): Promise<BodyOutcome> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.resolve({ refused: 413 });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (outcome: BodyOutcome) => {
      clearTimeout(timer);
      req.off("data", collect);
      req.off("end", complete);
      req.off("close", abandoned);
      resolve(outcome);
    };
    const collect = (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_BODY_BYTES) finish({ refused: 413 });
      else chunks.push(chunk);
    };
    const complete = () => finish({ body: Buffer.concat(chunks, received) });
    // A client that gives up frees its buffered chunks and its timer at once.
    const abandoned = () => {
      if (!req.complete) finish({ refused: 408 });
    };
    const timer = setTimeout(() => finish({ refused: 408 }), timeoutMs);
    req.on("data", collect);
    req.on("end", complete);
    req.once("close", abandoned);
  });
}

/**
 * After refusing a body the client may still be sending it. Closing at once would reset the
 * connection, and the client would see a reset instead of the answer: keep reading (and dropping)
 * for a bounded while, then close.
 */
function drainThenClose(req: IncomingMessage) {
  let drained = 0;
  const close = () => req.socket.destroy();
  const timer = setTimeout(close, DRAIN_AFTER_REFUSAL_MS);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_AFTER_REFUSAL_BYTES) close();
  });
  req.on("end", () => clearTimeout(timer));
  req.resume();
}

const hasBody = (req: IncomingMessage) =>
  req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;

/**
 * The single published entry point: routes to backend or frontend and answers /health and
 * /health/ready itself.
 */
export function createGateway({
  backendUrl,
  backendUrls = backendUrl ? [backendUrl] : [],
  backend,
  healthIntervalMs = 1000,
  healthTimeoutMs = 1000,
  frontendUrl,
  frontend,
  version,
  trustProxy = false,
  idleConnectionMs = 4000,
  streamsPerClient = 20,
  headersTimeoutMs = 10_000,
  bodyTimeoutMs = 30_000,
  readyTimeoutMs = 2000,
  connectTimeoutMs = 5000,
  compressionCache = createCompressionCache(),
}: GatewayOptions) {
  // Reused connections to backend and frontend: a new TCP connection per request costs more than the
  // request. An idle one is dropped before the target's own keep-alive timeout (Node's default: 5 s)
  // would close it, so a request is never sent down a connection the other end is closing, also for
  // targets that send no Keep-Alive hint for Node's agent to follow. No cap on the number of
  // connections: a capped pool lets whoever holds connections (long deploys, event streams) make
  // everyone else wait for a turn.
  const agent = new Agent({ keepAlive: true, timeout: idleConnectionMs });
  // Event streams stay open for hours: their own connections, never taken from or returned to the
  // pool that ordinary requests use.
  const streamAgent = new Agent({ keepAlive: false });
  const streams = streamCounter(streamsPerClient);
  if (!backend && backendUrls.length === 0) throw new Error("createGateway needs a backend URL or listener");
  if (!frontend && !frontendUrl) throw new Error("createGateway needs a frontend URL or listener");
  const backends = backend
    ? undefined
    : createBackendPool(backendUrls, { intervalMs: healthIntervalMs, timeoutMs: healthTimeoutMs });
  const frontends = frontend ? undefined : createBackendPool([frontendUrl!]);
  // Thousands of closed event streams leave their garbage in pages V8 keeps until told otherwise.
  const afterStreams = createMemoryRelease({ threshold: 500, quietMs: 2000 });

  function answer(proxyRes: IncomingMessage, req: IncomingMessage, res: ServerResponse) {
    Object.assign(proxyRes.headers, securityHeaders);
    // Server-Sent Events pass through as they arrive: no buffering by anything in between.
    if (String(proxyRes.headers["content-type"] ?? "").startsWith("text/event-stream")) {
      proxyRes.headers["x-accel-buffering"] = "no";
      proxyRes.headers["cache-control"] = "no-cache, no-transform";
    }
    void sendCompressed(proxyRes, req, res, compressionCache);
  }

  const eventStreamHeaders = (contentType: string): Record<string, string> =>
    contentType.startsWith("text/event-stream")
      ? { ...securityHeaders, "x-accel-buffering": "no", "cache-control": "no-cache, no-transform" }
      : securityHeaders;

  const unreachable = (res: ServerResponse, target: "backend" | "frontend") => (reason: string) =>
    sendJson(res, 502, {
      code: "BAD_GATEWAY",
      status: 502,
      message: `The ${target} is not reachable (${reason})`,
    });

  async function ready(res: ServerResponse) {
    if (backend) {
      const reason = backend.notReady?.();
      if (reason === undefined) sendJson(res, 200, { status: "ok", version });
      else
        sendJson(
          res,
          503,
          errorBody("SERVICE_UNAVAILABLE", 503, `The backend is not taking requests (${reason})`),
        );
      return;
    }
    const reasons = await Promise.all(backendUrls.map((url) => probe(url, READINESS_PATH, readyTimeoutMs)));
    if (reasons.some((reason) => reason === undefined)) {
      sendJson(res, 200, { status: "ok", version });
      return;
    }
    // Public: an address with credentials written into it is named without them.
    const named = backendUrls.map((url) => url.replace(/\/\/[^/@]*@/, "//…@"));
    const which = named.map((url, index) => `${url} (${reasons[index]})`).join(", ");
    sendJson(
      res,
      503,
      errorBody(
        "SERVICE_UNAVAILABLE",
        503,
        backendUrls.length === 1
          ? `The backend (${named[0]}) is not reachable (${reasons[0]})`
          : `No backend is ready: ${which}`,
      ),
    );
  }

  async function forward(
    req: IncomingMessage,
    res: ServerResponse,
    route: "backend" | "frontend",
    isStream: boolean,
  ) {
    let body: Buffer | undefined;
    if (hasBody(req)) {
      const outcome = await readBody(req, bodyTimeoutMs);
      if ("refused" in outcome) {
        const message =
          outcome.refused === 413
            ? `The request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB`
            : `The request body did not arrive within ${bodyTimeoutMs / 1000} s`;
        const code = outcome.refused === 413 ? "PAYLOAD_TOO_LARGE" : "REQUEST_TIMEOUT";
        // A trickling client is cut off; an oversized body is read (and dropped) a while longer.
        if (outcome.refused === 413) drainThenClose(req);
        sendJson(
          res,
          outcome.refused,
          errorBody(code, outcome.refused, message),
          outcome.refused === 408 ? { connection: "close" } : {},
        );
        return;
      }
      body = outcome.body;
    }
    const onFailure = unreachable(res, route);
    if (isStream) res.once("close", () => afterStreams.ended());
    const inProcess = route === "backend" ? backend : frontend;
    if (inProcess) {
      handOver({
        req,
        res,
        body,
        target: inProcess,
        headers: eventStreamHeaders,
        cache: compressionCache,
        onFailure,
      });
      return;
    }
    const pool = (route === "backend" ? backends : frontends)!;
    if (isStream && req.httpVersion === "1.1") {
      forwardEventStream({ req, res, body, pool, connectTimeoutMs, headers: eventStreamHeaders, onFailure });
      return;
    }
    await forwardRequest({
      req,
      res,
      body,
      pool,
      connectTimeoutMs,
      agent: isStream ? streamAgent : agent,
      onAnswer: (proxyRes) => answer(proxyRes, req, res),
      onFailure,
    });
  }

  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      // Node's own backstop; the body's time limit is enforced above, with a JSON answer.
      requestTimeout: headersTimeoutMs + bodyTimeoutMs + 1000,
      connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
    },
    (req: IncomingMessage, res: ServerResponse) => {
      const target = (req.url ?? "/").split("?")[0]!;
      const pathname = canonicalPath(target);
      const route = routeFor(pathname);
      // The limits and the retries below go by the path. Spelt otherwise (`events/`, `%65vents`,
      // `//`, `./`), it would be the same to the backend but escape them; nothing of ours sends it.
      if (route !== "frontend" && target !== pathname) {
        sendJson(res, 400, errorBody("NON_CANONICAL_PATH", 400, nonCanonicalPathMessage(pathname)));
        return;
      }
      if (route === "health") {
        sendJson(res, 200, { status: "ok", version });
        return;
      }
      if (route === "ready") {
        void ready(res);
        return;
      }
      const isStream = EVENT_STREAM_PATHS.has(pathname);
      if (isStream && !streams.admit(clientAddress(req, trustProxy), res)) {
        sendJson(
          res,
          429,
          errorBody(
            "TOO_MANY_REQUESTS",
            429,
            `At most ${streamsPerClient} open event streams per client; close one before opening another`,
          ),
        );
        return;
      }
      if (!trustProxy) {
        delete req.headers["x-forwarded-for"];
        delete req.headers["x-forwarded-host"];
        delete req.headers["x-forwarded-proto"];
        delete req.headers["x-forwarded-port"];
      }
      void forward(req, res, route, isStream);
    },
  );

  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    if (error.code === "ERR_HTTP_REQUEST_TIMEOUT")
      writeRawJson(
        socket,
        408,
        "Request Timeout",
        errorBody("REQUEST_TIMEOUT", 408, "The request did not arrive in time"),
      );
    else if (error.code === "HPE_HEADER_OVERFLOW")
      writeRawJson(
        socket,
        431,
        "Request Header Fields Too Large",
        errorBody("HEADERS_TOO_LARGE", 431, "The request headers are too large"),
      );
    else writeRawJson(socket, 400, "Bad Request", errorBody("BAD_REQUEST", 400, "The request is malformed"));
  });

  void backends?.start();
  server.on("close", () => backends?.stop());
  return server;
}
