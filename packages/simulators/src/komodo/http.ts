import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { KomodoError } from "./errors.ts";
import type { ServerFaults } from "./faults.ts";
import { answerHostile } from "./hostile.ts";
import { type Api, handlerFor, KOMODO_VERSION, type RequestHandlers } from "./requests.ts";
import { isPlainObject } from "./updates.ts";

export interface RecordedCall {
  api: Api;
  type: string;
  params: unknown;
  /** Epoch milliseconds when the request arrived. */
  at: number;
}

export interface ListenerOptions {
  credentials: { key: string; secret: string };
  handlers: RequestHandlers;
  faults: () => ServerFaults;
  record: (call: RecordedCall) => void;
}

const API_ROUTE = /^\/(read|write|execute)(?:\/([A-Za-z0-9]+))?\/?$/;
const MAX_BODY_BYTES = 1024 * 1024;

/** The page Komodo's UI fallback would serve: what a client sees from a misrouted or broken server. */
const GARBAGE =
  '<!doctype html><html><head><title>Komodo</title></head><body><div id="root"></div></body></html>';

type Body = { ok: true; value: unknown } | { ok: false; status: number; text: string };

/** Komodo's HTTP surface: `GET /version` and `POST /read|/write|/execute[/<Type>]`. */
export function createRequestListener(options: ListenerOptions): RequestListener {
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://simulator").pathname;
    const route = API_ROUTE.exec(path);

    if (!route) {
      await delay(options.faults());
      if (request.method === "GET" && path === "/version") return sendText(response, 200, KOMODO_VERSION);
      return sendText(response, 404, "Not Found");
    }
    if (request.method !== "POST") return sendText(response, 405, "Method Not Allowed");

    const api = route[1] as Api;
    const body = parseBody(await readBody(request), request.headers["content-type"]);
    const { type, params } = splitRequest(route[2], body);
    if (type) options.record({ api, type, params, at: Date.now() });

    const faults = options.faults();
    await delay(faults);
    if (faults.garbage) return sendText(response, 200, GARBAGE, "text/html; charset=utf-8");
    const hostile = type ? faults.hostileAnswers?.[type] : undefined;
    if (hostile) return answerHostile(response, hostile);

    try {
      // Komodo authenticates in a middleware, before the body is looked at.
      authenticate(request.headers, options.credentials, faults.badCredentials ?? false);
      if (!body.ok) return sendText(response, body.status, body.text);
      if (!type) throw new KomodoError("missing field `type`");
      if (!isPlainObject(params)) throw new KomodoError(`invalid type: expected struct ${type}`);
      sendJson(response, 200, handlerFor(options.handlers, api, type)(params));
    } catch (error) {
      const failure =
        error instanceof KomodoError
          ? error
          : new KomodoError(error instanceof Error ? error.message : String(error));
      sendJson(response, failure.status, failure.body);
    }
  }

  return (request, response) => {
    handle(request, response).catch(() => response.destroy());
  };
}

/** Both request forms: the type in the path with bare params, or a `{type, params}` envelope. */
function splitRequest(pathType: string | undefined, body: Body): { type?: string; params: unknown } {
  const value = body.ok ? body.value : undefined;
  if (pathType) return { type: pathType, params: value };
  if (!isPlainObject(value) || typeof value.type !== "string") return { params: undefined };
  return { type: value.type, params: value.params };
}

/** Throws Komodo's answers to missing, incomplete and wrong credentials. */
function authenticate(
  headers: IncomingHttpHeaders,
  credentials: { key: string; secret: string },
  refuseAll: boolean,
): void {
  const key = single(headers["x-api-key"])?.trim();
  if (key === undefined) throw new KomodoError("Invalid client credentials", { status: 401 });
  const secret = single(headers["x-api-secret"])?.trim();
  if (secret === undefined) throw new KomodoError("Request headers have X-API-KEY but missing X-API-SECRET");
  if (refuseAll || key !== credentials.key || secret !== credentials.secret) {
    throw new KomodoError("Invalid user credentials", { status: 401 });
  }
}

/** What axum's `Json` extractor accepts, with its plain-text rejections. */
function parseBody(raw: string | undefined, contentType: string | undefined): Body {
  if (raw === undefined)
    return { ok: false, status: 413, text: "Failed to buffer the request body: length limit exceeded" };
  const mediaType = contentType?.split(";")[0].trim().toLowerCase() ?? "";
  if (mediaType !== "application/json" && !mediaType.endsWith("+json")) {
    return { ok: false, status: 415, text: "Expected request with `Content-Type: application/json`" };
  }
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return {
      ok: false,
      status: 400,
      text: `Failed to parse the request body as JSON: ${(error as Error).message}`,
    };
  }
}

/** The body as text, or undefined when it exceeds the limit. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function delay(faults: ServerFaults): Promise<void> {
  if (faults.latencyMs && faults.latencyMs > 0) await sleep(faults.latencyMs);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, JSON.stringify(body), "application/json");
}

function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  contentType = "text/plain; charset=utf-8",
) {
  send(response, status, text, contentType);
}

function send(response: ServerResponse, status: number, body: string, contentType: string): void {
  if (response.destroyed) return;
  response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  response.end(body);
}
