/**
 * Targets in the gateway's own process: when the gateway, the backend and the dashboard's server run
 * as one process, the gateway hands each request to the backend's or the dashboard's request
 * listener directly instead of sending it over a loopback connection. What the target sees and what
 * the client gets are what they would be over HTTP: the request with the gateway's forwarding headers
 * and its body already read whole (within the gateway's limits); the answer with the gateway's
 * headers, compressed when that pays, hashed assets compressed once and kept.
 */
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Transform } from "node:stream";
import {
  type CompressionCache,
  compressedForEveryone,
  HOP_BY_HOP,
  planAnswer,
  streamingEncoder,
} from "./compression.ts";
import { forwardedHeaders } from "./forward.ts";

/** A target in this process: a Node request listener that answers on `res`. */
export interface InProcessTarget {
  handle(req: IncomingMessage, res: ServerResponse): unknown;
  /** Why it takes no new requests now (for `/health/ready`), or undefined while it does. */
  notReady?(): string | undefined;
}

interface HandOverOptions {
  req: IncomingMessage;
  res: ServerResponse;
  /** The whole body, already read by the gateway; undefined when the request has none. */
  body: Buffer | undefined;
  target: InProcessTarget;
  /** The gateway's own headers for an answer of this content type (security headers, SSE's). */
  headers: (contentType: string) => Record<string, string>;
  cache: CompressionCache;
  /** Told when the target failed before answering (it threw, or its promise was rejected). */
  onFailure: (reason: string) => void;
}

/**
 * The request's headers replaced by those a target over HTTP would get (hop-by-hop ones removed,
 * X-Forwarded-For, -Port, -Proto and -Host added), and its body, read already, where the listeners
 * look for a body read before them: `rawBody` (Hono's Node adapter) and `body` (Astro's).
 */
function asForwarded(req: IncomingMessage, body: Buffer | undefined) {
  const headers = forwardedHeaders(req);
  if (body) headers["content-length"] = String(body.length);
  const rawHeaders: string[] = [];
  for (const [name, value] of Object.entries(headers))
    for (const each of Array.isArray(value) ? value : [value]) rawHeaders.push(name, each);
  req.headers = headers;
  req.rawHeaders = rawHeaders;
  if (body) Object.assign(req, { rawBody: body, body });
}

/** Header values given to `writeHead`, as an object with lower-case names. */
function headersGiven(given: unknown, into: OutgoingHttpHeaders) {
  if (!given) return;
  if (Array.isArray(given)) {
    // `[[name, value], …]` or the flat `[name, value, name, value, …]`.
    const pairs: [string, OutgoingHttpHeader][] = Array.isArray(given[0])
      ? (given as [string, OutgoingHttpHeader][])
      : Array.from({ length: given.length / 2 }, (_, index) => [given[2 * index], given[2 * index + 1]]);
    for (const [name, value] of pairs) {
      const lower = name.toLowerCase();
      const earlier = into[lower];
      into[lower] =
        earlier === undefined ? value : [...[earlier].flat().map(String), ...[value].flat().map(String)];
    }
    return;
  }
  for (const [name, value] of Object.entries(given as OutgoingHttpHeaders))
    if (value !== undefined) into[name.toLowerCase()] = value;
}

type Callback = (error?: Error | null) => void;
const toBuffer = (chunk: unknown, encoding?: BufferEncoding) =>
  Buffer.isBuffer(chunk)
    ? chunk
    : typeof chunk === "string"
      ? Buffer.from(chunk, encoding)
      : Buffer.from(chunk as Uint8Array);

/** What Node's response keeps of a length set without a header (Hono's adapter sets it so). */
type WithContentLength = ServerResponse & { _contentLength: number | null };

/**
 * Puts the gateway between the target and `res`, as `sendCompressed` does for an answer over HTTP:
 * when the target writes its head, hop-by-hop headers go, the gateway's own are set, and the answer is
 * compressed as it is written, or (for what is the same for everyone) collected, compressed once
 * through `cache` and sent whole.
 */
function interceptAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  ownHeaders: (contentType: string) => Record<string, string>,
  cache: CompressionCache,
) {
  type Loose = (this: ServerResponse, ...args: unknown[]) => unknown;
  const writeHead = res.writeHead as Loose;
  const write = res.write as Loose;
  const end = res.end as Loose;
  let decided = false;
  let encoder: Transform | undefined;
  let collected: Buffer[] | undefined;
  let held: { status: number; reason: string | undefined; headers: OutgoingHttpHeaders } | undefined;

  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    // Once decided, the head is the gateway's: a second call (an implicit one while a whole answer
    // is being collected) changes nothing.
    if (decided) return res;
    decided = true;
    const reason = typeof rest[0] === "string" ? (rest.shift() as string) : undefined;
    const headers: OutgoingHttpHeaders = { ...res.getHeaders() };
    headersGiven(rest[0], headers);
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    for (const name of HOP_BY_HOP) delete headers[name];
    const lengthWithoutHeader = (res as WithContentLength)._contentLength;
    if (headers["content-length"] === undefined && typeof lengthWithoutHeader === "number")
      headers["content-length"] = lengthWithoutHeader;
    Object.assign(headers, ownHeaders(String(headers["content-type"] ?? "")));
    const { encoding, sameForEveryone } = planAnswer(req, status, headers);
    if (!encoding) return writeHead.call(res, status, reason, headers);
    (res as WithContentLength)._contentLength = null;
    if (sameForEveryone) {
      collected = [];
      held = { status, reason, headers };
      return res;
    }
    delete headers["content-length"];
    const compressing = streamingEncoder(encoding);
    encoder = compressing;
    compressing.on("data", (chunk: Buffer) => {
      if (write.call(res, chunk) === false) compressing.pause();
    });
    // The client's connection drained: the encoder may go on, and the target may write again.
    res.on("drain", () => compressing.resume());
    compressing.on("drain", () => res.emit("drain"));
    compressing.once("end", () => end.call(res));
    compressing.once("error", () => res.destroy());
    return writeHead.call(res, status, reason, headers);
  } as ServerResponse["writeHead"];

  res.write = ((chunk: unknown, encoding?: BufferEncoding | Callback, callback?: Callback) => {
    if (typeof encoding === "function") {
      callback = encoding;
      encoding = undefined;
    }
    if (!decided) res.writeHead(res.statusCode);
    if (collected) {
      collected.push(toBuffer(chunk, encoding));
      if (callback) process.nextTick(callback);
      return true;
    }
    if (encoder) return encoder.write(chunk, encoding as BufferEncoding, callback);
    return write.call(res, chunk, encoding as BufferEncoding, callback);
  }) as ServerResponse["write"];

  res.end = ((chunk?: unknown, encoding?: BufferEncoding | Callback, callback?: Callback) => {
    if (typeof chunk === "function") {
      callback = chunk as Callback;
      chunk = undefined;
    }
    if (typeof encoding === "function") {
      callback = encoding;
      encoding = undefined;
    }
    if (!decided) {
      // A whole answer in one call: its length is known, as a target over HTTP declares it.
      if (!res.hasHeader("content-length") && !res.hasHeader("transfer-encoding"))
        (res as WithContentLength)._contentLength =
          chunk == null ? 0 : toBuffer(chunk, encoding as BufferEncoding).length;
      res.writeHead(res.statusCode);
    }
    if (collected && held) {
      if (chunk != null) collected.push(toBuffer(chunk, encoding as BufferEncoding));
      const { status, reason, headers } = held;
      const whole = Buffer.concat(collected);
      collected = [];
      const encodingUsed = headers["content-encoding"] as "br" | "gzip";
      void compressedForEveryone(req, whole, encodingUsed, headers, cache).then((bytes) => {
        if (res.destroyed) return;
        writeHead.call(res, status, reason, headers);
        end.call(res, bytes, callback);
      });
      return res;
    }
    if (encoder) {
      if (callback) res.once("finish", () => callback());
      if (chunk == null) encoder.end();
      else encoder.end(chunk, encoding as BufferEncoding);
      return res;
    }
    return end.call(res, chunk, encoding as BufferEncoding, callback);
  }) as ServerResponse["end"];
}

/** Hands the request to a target in this process; its answer goes to the client through the gateway. */
export function handOver({ req, res, body, target, headers, cache, onFailure }: HandOverOptions) {
  asForwarded(req, body);
  interceptAnswer(req, res, headers, cache);
  const failed = (error: unknown) => {
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    onFailure(error instanceof Error ? error.message : String(error));
  };
  try {
    const answering = target.handle(req, res);
    if (answering instanceof Promise) answering.catch(failed);
  } catch (error) {
    failed(error);
  }
}
