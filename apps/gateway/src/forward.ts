import { randomUUID } from "node:crypto";
import { type Agent, type IncomingMessage, request, type ServerResponse, STATUS_CODES } from "node:http";
import { connect, type Socket } from "node:net";
import type { BackendPool, Target } from "./backends.ts";

/** Headers that describe one connection, not the request: never passed on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "upgrade",
  "te",
  "trailer",
  "transfer-encoding",
  // The gateway has the whole body already: the target need not be asked to wait for it.
  "expect",
]);

/** Methods a second target may be asked again after the first may have received the request. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Deploys (the REST path and the dashboard's oRPC one). The backend records a deploy's
 * Idempotency-Key with its run, in one transaction, before anything reaches Komodo, and answers a
 * repeat with the same run. So, in front of several backends, the gateway gives each deploy that
 * comes without a key one of its own,
 * and a deploy whose connection broke goes on to another backend: there it either finds the run the
 * first one started, or the first one never started it (as when a backend killed a moment before
 * still had an open connection in the pool).
 */
const DEPLOY_PATHS = new Set(["/api/v0/deploy", "/rpc/deploy/run"]);

/** The client's headers as the target gets them, with X-Forwarded-For, -Port, -Proto and -Host. */
export function forwardedHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  const append = (name: string, value: string) => {
    const earlier = headers[name];
    headers[name] = earlier ? `${earlier},${value}` : value;
  };
  append("x-forwarded-for", req.socket.remoteAddress ?? "");
  append("x-forwarded-port", /:(\d+)$/.exec(req.headers.host ?? "")?.[1] ?? "80");
  append("x-forwarded-proto", "http");
  headers["x-forwarded-host"] ||= req.headers.host ?? "";
  return headers;
}

const connectTimeoutError = (ms: number) =>
  Object.assign(new Error(`no connection within ${ms} ms`), { code: "ETIMEDOUT" });

interface ForwardOptions {
  req: IncomingMessage;
  res: ServerResponse;
  /** The whole body, already read (so that it can be sent again to another target). */
  body: Buffer | undefined;
  pool: BackendPool;
  connectTimeoutMs: number;
  /** Told when every target was tried and none answered. */
  onFailure: (reason: string) => void;
}

type Attempt = { answered: true } | { answered: false; reason: string; tryAnother: boolean };

/**
 * Sends an ordinary request to a target of `pool` and hands its answer to `onAnswer`. A request that
 * did not reach a target (no connection, or the connection failed before the target could have
 * received it) goes to the next; so does a safe method (GET, HEAD, OPTIONS) whose connection failed
 * before an answer came, and a deploy (see DEPLOY_PATHS). Any other request that may have reached a
 * target is never sent again.
 */
export async function forwardRequest({
  req,
  res,
  body,
  pool,
  connectTimeoutMs,
  agent,
  onAnswer,
  onFailure,
}: ForwardOptions & { agent: Agent; onAnswer: (answer: IncomingMessage) => void }) {
  const headers = forwardedHeaders(req);
  if (body) headers["content-length"] = String(body.length);
  // With one backend there is no other to send a deploy on to, and a key would only cost a row.
  const resendableDeploy =
    pool.targets.length > 1 && req.method === "POST" && DEPLOY_PATHS.has((req.url ?? "").split("?")[0]!);
  if (resendableDeploy) headers["idempotency-key"] ??= `gateway-${randomUUID()}`;
  const resendable = resendableDeploy || SAFE_METHODS.has(req.method ?? "");
  const tried = new Set<Target>();
  let reason = "no target";
  for (let target = pool.choose("requests"); target; target = pool.choose("requests", tried)) {
    tried.add(target);
    const attempt = await attemptRequest(target);
    if (attempt.answered) return;
    reason = attempt.reason;
    if (!attempt.tryAnother) break;
  }
  onFailure(reason);

  function attemptRequest(target: Target): Promise<Attempt> {
    return new Promise((resolve) => {
      target.requests++;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        target.requests--;
      };
      let answered = false;
      let connected = false;
      /** Whether anything of this request went into a connection (sent, or buffered to be sent). */
      let written = () => false;
      const outgoing = request({
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        agent,
        setHost: false,
      });
      const clientGone = () => {
        release();
        if (!res.writableFinished) outgoing.destroy();
      };
      res.once("close", clientGone);
      outgoing.on("socket", (socket: Socket) => {
        const before = socket.bytesWritten;
        written = () => socket.bytesWritten > before;
        if (!socket.connecting) {
          connected = true;
          return;
        }
        const timer = setTimeout(
          () => outgoing.destroy(connectTimeoutError(connectTimeoutMs)),
          connectTimeoutMs,
        );
        socket.once("connect", () => {
          connected = true;
          clearTimeout(timer);
        });
        socket.once("close", () => clearTimeout(timer));
      });
      outgoing.on("response", (answer) => {
        answered = true;
        resolve({ answered: true });
        onAnswer(answer);
      });
      outgoing.on("error", (error: NodeJS.ErrnoException) => {
        // Once answered, a broken answer is the answer's stream's business.
        if (answered) return;
        res.off("close", clientGone);
        release();
        if (res.destroyed) {
          resolve({ answered: true });
          return;
        }
        const reason = error.code ?? error.message;
        if (!connected) pool.unreachable(target, reason);
        const mayHaveArrived = connected && written();
        resolve({
          answered: false,
          reason,
          tryAnother: !mayHaveArrived || resendable,
        });
      });
      outgoing.end(body);
    });
  }
}

/** Status line and headers of an HTTP/1.x answer, as it arrived. */
function parseHead(head: string) {
  const [statusLine = "", ...lines] = head.split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 502);
  const headers: [string, string][] = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return { status, headers };
}

const MAX_HEAD_BYTES = 64 * 1024;

/**
 * What every event stream's connection to a target reads into. Node otherwise allocates 64 KiB for
 * each read and shrinks it to what arrived: one event written to 5,000 streams made 5,000 such
 * allocations at once, and the memory they fragmented stayed with the process after the streams
 * closed (bench/RESULTS.md). What arrives is copied out at its own size, at once.
 */
const sharedReadBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * Passes an event stream through at the level of bytes. Event streams are long and many (thousands
 * open at once), and each event is written to all of them at the same moment: parsing each chunk as
 * HTTP and writing it again as HTTP cost the gateway more than the backend's own work (bench/RESULTS.md).
 * So the gateway opens a plain connection to the target, writes the request, reads the answer's head,
 * writes its own head (with `headers(contentType)` and `connection: close`) to the client's connection,
 * and from then on copies bytes: the target's chunked framing is valid HTTP/1.1 for the client too.
 * Needs an HTTP/1.1 client. A stream that cannot be opened on one target is opened on the next.
 */
export function forwardEventStream({
  req,
  res,
  body,
  pool,
  connectTimeoutMs,
  headers: extraHeaders,
  onFailure,
}: ForwardOptions & { headers: (contentType: string) => Record<string, string> }) {
  const client = req.socket;
  const requestHeaders = forwardedHeaders(req);
  if (body) requestHeaders["content-length"] = String(body.length);
  requestHeaders.connection = "close";
  const requestHead = Buffer.from(
    `${req.method} ${req.url} HTTP/1.1\r\n${Object.entries(requestHeaders)
      .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(", ") : value}\r\n`)
      .join("")}\r\n`,
    "latin1",
  );
  const tried = new Set<Target>();

  const attempt = () => {
    const target = pool.choose("streams", tried);
    if (res.destroyed) return;
    if (!target) {
      onFailure("no target");
      return;
    }
    tried.add(target);
    target.streams++;
    const upstream = connect({
      host: target.hostname,
      port: target.port,
      noDelay: true,
      onread: {
        buffer: sharedReadBuffer,
        callback: (bytes: number, buffer: Uint8Array) => {
          const chunk = Buffer.from(buffer.subarray(0, bytes));
          if (!answered) {
            readHead(chunk);
            return true;
          }
          if (client.write(chunk)) return true;
          // A client that does not keep up holds the target back, not the gateway's memory.
          client.once("drain", () => upstream.resume());
          return false;
        },
      },
    });
    let connected = false;
    let answered = false;
    let failure = "closed before answering";
    let head: Buffer | undefined;
    const timer = setTimeout(() => upstream.destroy(connectTimeoutError(connectTimeoutMs)), connectTimeoutMs);
    const clientGone = () => upstream.destroy();
    res.once("close", clientGone);

    upstream.once("connect", () => {
      connected = true;
      clearTimeout(timer);
      upstream.write(body ? Buffer.concat([requestHead, body]) : requestHead);
    });
    const readHead = (chunk: Buffer) => {
      head = head ? Buffer.concat([head, chunk]) : chunk;
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES) upstream.destroy(new Error("answer head too large"));
        return;
      }
      answered = true;
      const { status, headers } = parseHead(head.toString("latin1", 0, end));
      const contentType = headers.find(([name]) => name === "content-type")?.[1] ?? "";
      const own = extraHeaders(contentType);
      const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}`];
      for (const [name, value] of headers)
        if (name !== "connection" && name !== "keep-alive" && !(name in own)) lines.push(`${name}: ${value}`);
      for (const [name, value] of Object.entries(own)) lines.push(`${name}: ${value}`);
      lines.push("connection: close", "", "");
      client.write(lines.join("\r\n"), "latin1");
      if (end + 4 < head.length) client.write(head.subarray(end + 4));
      head = undefined;
    };
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      failure = error.code ?? error.message;
    });
    upstream.once("close", () => {
      clearTimeout(timer);
      target.streams--;
      res.off("close", clientGone);
      if (answered) {
        // Ended by the target (it is stopping, or the answer was short): the client reconnects.
        client.destroySoon();
        return;
      }
      if (res.destroyed) return;
      if (!connected) pool.unreachable(target, failure);
      if (tried.size < pool.targets.length && (!connected || SAFE_METHODS.has(req.method ?? ""))) attempt();
      else onFailure(failure);
    });
  };
  attempt();
}
