/**
 * Compression of what the gateway passes on: brotli where the client accepts it, gzip otherwise, for
 * text (HTML, JavaScript, CSS, JSON, SVG, …), never for event streams, binary types or bodies that are
 * already encoded.
 *
 * Assets that are the same for everyone (Astro's hashed `/_astro/*` files, and answers marked
 * `cache-control: public` such as the reference page's bundle) are compressed once, at the best
 * ratio, and the compressed bytes kept in memory, keyed by path, encoding and a hash of the content:
 * the gateway and the frontend run as separate processes (containers), so the gateway cannot read
 * files the frontend's build might have compressed beside its assets, and Astro's server does not
 * serve such files. Keying by content means a new build is never answered with stale bytes, and the
 * target is still asked every time (so status codes, conditional requests and sign-in stay its own).
 * Everything else (pages, API answers) is compressed as it streams, at a fast setting.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { pipeline } from "node:stream";
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from "node:zlib";

export type Encoding = "br" | "gzip";

/** Bodies smaller than this gain less than the encoding costs. */
const MIN_BYTES = 1024;
/** Best ratio for assets compressed once; above this size brotli's best takes seconds, so less. */
const BEST_QUALITY_UP_TO_BYTES = 1024 * 1024;
export const IMMUTABLE = "public, max-age=31536000, immutable";

const COMPRESSIBLE_TYPE =
  /^(text\/(?!event-stream)|application\/(json|javascript|ecmascript|xml|manifest\+json|[\w.-]+\+(json|xml))|image\/svg\+xml)/i;

export const HOP_BY_HOP = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"];

/** brotli if accepted, else gzip, else nothing; `q=0` refuses an encoding. */
export function chooseEncoding(acceptEncoding: string | string[] | undefined): Encoding | undefined {
  const accepted = new Set<string>();
  for (const part of String(acceptEncoding ?? "").split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const quality = params.map((param) => param.trim()).find((param) => param.startsWith("q="));
    if (quality === undefined || Number(quality.slice(2)) > 0) accepted.add(name.trim());
  }
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip") || accepted.has("*")) return "gzip";
  return undefined;
}

export const isCompressibleType = (contentType: string) => COMPRESSIBLE_TYPE.test(contentType);

/** Hashed build output: its name changes with its content, so browsers may keep it for a year. */
export const isHashedAsset = (pathname: string) => pathname.startsWith("/_astro/");

export interface CompressionCache {
  /** The compressed bytes of `body` for `key` (path and encoding), made at most once per content. */
  compressed(key: string, body: Buffer, encoding: Encoding): Promise<Buffer>;
  /** How many compressions the cache has run, for tests and the bench. */
  readonly compressions: number;
  readonly bytes: number;
}

/** Compressed assets kept in memory, the oldest dropped past `maxBytes`. */
export function createCompressionCache(maxBytes = 64 * 1024 * 1024): CompressionCache {
  const entries = new Map<string, Promise<Buffer>>();
  const sizes = new Map<string, number>();
  let bytes = 0;
  let compressions = 0;
  const forget = (key: string) => {
    bytes -= sizes.get(key) ?? 0;
    sizes.delete(key);
    entries.delete(key);
  };
  return {
    get compressions() {
      return compressions;
    },
    get bytes() {
      return bytes;
    },
    compressed(key, body, encoding) {
      const fullKey = `${key}\n${encoding}\n${createHash("sha256").update(body).digest("base64")}`;
      const known = entries.get(fullKey);
      if (known) return known;
      compressions++;
      const made = compress(body, encoding, body.length <= BEST_QUALITY_UP_TO_BYTES ? "best" : "fast");
      entries.set(fullKey, made);
      made.then(
        (result) => {
          if (!entries.has(fullKey)) return;
          sizes.set(fullKey, result.length);
          bytes += result.length;
          for (const oldest of entries.keys()) {
            if (bytes <= maxBytes || oldest === fullKey) break;
            forget(oldest);
          }
        },
        () => forget(fullKey),
      );
      return made;
    },
  };
}

function compress(body: Buffer, encoding: Encoding, effort: "best" | "fast"): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Buffer) => (error ? reject(error) : resolve(result));
    if (encoding === "gzip") gzip(body, { level: effort === "best" ? 9 : 6 }, done);
    else
      brotliCompress(
        body,
        {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: effort === "best" ? 11 : 5,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        },
        done,
      );
  });
}

export function streamingEncoder(encoding: Encoding) {
  return encoding === "br"
    ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4 } })
    : createGzip({ level: 6 });
}

function withVary(vary: OutgoingHttpHeaders[string], field: string): string {
  const fields = String(vary ?? "")
    .split(",")
    .map((value) => value.trim())
    .filter(Boolean);
  if (fields.includes("*") || fields.some((value) => value.toLowerCase() === field.toLowerCase()))
    return fields.join(", ");
  return [...fields, field].join(", ");
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.once("end", () => resolve(Buffer.concat(chunks)));
    stream.once("error", reject);
    stream.once("aborted", () => reject(new Error("the target closed the answer early")));
  });
}

/** How an answer goes to the client: whether compressed, and whether once for everyone. */
export interface AnswerPlan {
  /** The encoding to compress with; undefined: the body goes as it is. */
  encoding: Encoding | undefined;
  /** Compressed once, kept and answered to everyone (hashed assets, `cache-control: public`). */
  sameForEveryone: boolean;
}

/**
 * Decides how an answer of `status` with `headers` (lower-case names, hop-by-hop ones removed) goes to
 * the client that asked `req`, and adjusts `headers` to it: `Vary: Accept-Encoding` on compressible
 * types, a year's cache for hashed assets, `Content-Encoding` and a weak ETag when compressed. The
 * `Content-Length` stays as the target declared it: the caller replaces or removes it.
 */
export function planAnswer(req: IncomingMessage, status: number, headers: OutgoingHttpHeaders): AnswerPlan {
  const pathname = new URL(req.url ?? "/", "http://gateway").pathname;
  const contentType = String(headers["content-type"] ?? "");
  const compressibleType = isCompressibleType(contentType);
  if (compressibleType) headers.vary = withVary(headers.vary, "Accept-Encoding");
  if (status === 200 && isHashedAsset(pathname)) headers["cache-control"] = IMMUTABLE;

  const declaredLength =
    headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  const encoding = chooseEncoding(req.headers["accept-encoding"]);
  const worthIt =
    encoding !== undefined &&
    compressibleType &&
    req.method !== "HEAD" &&
    status !== 204 &&
    status !== 304 &&
    headers["content-encoding"] === undefined &&
    !/no-transform/i.test(String(headers["cache-control"] ?? "")) &&
    (declaredLength === undefined || declaredLength >= MIN_BYTES);
  if (!worthIt) return { encoding: undefined, sameForEveryone: false };

  headers["content-encoding"] = encoding;
  // The encoded bytes are another representation: a strong validator would claim byte equality.
  if (typeof headers.etag === "string" && !headers.etag.startsWith("W/")) headers.etag = `W/${headers.etag}`;
  const sameForEveryone =
    req.method === "GET" &&
    status === 200 &&
    (isHashedAsset(pathname) || /(^|,)\s*public\b/i.test(String(headers["cache-control"] ?? "")));
  return { encoding, sameForEveryone };
}

/** The compressed bytes of a whole body for everyone, kept in `cache`; the body itself if compressing fails. */
export async function compressedForEveryone(
  req: IncomingMessage,
  body: Buffer,
  encoding: Encoding,
  headers: OutgoingHttpHeaders,
  cache: CompressionCache,
): Promise<Buffer> {
  const pathname = new URL(req.url ?? "/", "http://gateway").pathname;
  let bytes: Buffer;
  try {
    bytes = await cache.compressed(pathname, body, encoding);
  } catch {
    delete headers["content-encoding"];
    bytes = body;
  }
  headers["content-length"] = String(bytes.length);
  return bytes;
}

/**
 * Sends a target's answer on to the client, compressed when that pays. The caller has already put
 * its own headers (security headers) on `answer`.
 */
export async function sendCompressed(
  answer: IncomingMessage,
  req: IncomingMessage,
  res: ServerResponse,
  cache: CompressionCache,
): Promise<void> {
  const status = answer.statusCode ?? 502;
  const headers: OutgoingHttpHeaders = { ...answer.headers };
  for (const name of HOP_BY_HOP) delete headers[name];
  const { encoding, sameForEveryone } = planAnswer(req, status, headers);

  if (!encoding) {
    res.writeHead(status, headers);
    pipeline(answer, res, () => {});
    return;
  }

  if (sameForEveryone) {
    let body: Buffer;
    try {
      body = await readAll(answer);
    } catch {
      res.destroy();
      return;
    }
    const bytes = await compressedForEveryone(req, body, encoding, headers, cache);
    res.writeHead(status, headers);
    res.end(bytes);
    return;
  }

  delete headers["content-length"];
  res.writeHead(status, headers);
  pipeline(answer, streamingEncoder(encoding), res, () => {});
}
