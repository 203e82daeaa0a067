/**
 * A stand-in ntfy server (v2.13 behaviour) that records what it receives. It
 * accepts the JSON publish at the root and plain publishes at /<topic>, checks
 * topics, priority and size the way ntfy does, and answers with ntfy's bodies.
 * Facts: shared/integrations/trivy-ntfy.md §2, shared/fixtures/ntfy/.
 */

import { isUtf8 } from "node:buffer";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { hostileText } from "../komodo/faults.ts";
import { answerHostile } from "../komodo/hostile.ts";

/**
 * ok: normal ntfy; unauthorized, forbidden, error: that answer to every publish; slow: ok after slowMs;
 * hostile: 400 whose error is 30 KB of text with terminal escapes and a right-to-left override;
 * flood: 200 with a body that never ends.
 */
export type NtfyReceiverMode = "ok" | "unauthorized" | "forbidden" | "slow" | "error" | "hostile" | "flood";

export interface NtfyReceiverOptions {
  /** When set, publishing needs `Authorization: Bearer <token>` (a wrong one → 401, none → 403). */
  token?: string;
  mode?: NtfyReceiverMode;
  /** Delay of the slow mode, default 10 000 ms. */
  slowMs?: number;
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Called once per request after it was answered (the CLI prints from here). */
  onRequest?: (request: ReceivedRequest) => void;
}

/** A message as ntfy stores and returns it. */
export interface NtfyMessage {
  id: string;
  time: number;
  expires: number;
  event: "message";
  topic: string;
  title?: string;
  message: string;
  priority?: number;
  tags?: string[];
  click?: string;
  content_type?: "text/markdown";
}

export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  /** All headers as received, Authorization included. */
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  /** HTTP status of the answer; 0 while the answer is pending (slow mode). */
  status: number;
  /** The stored message when the publish was accepted. */
  published?: NtfyMessage;
}

export interface PublishedMessage extends NtfyMessage {
  request: ReceivedRequest;
}

export interface NtfyReceiver {
  url: string;
  published: PublishedMessage[];
  /** Every request, rejected ones included. */
  requests: ReceivedRequest[];
  setMode(mode: NtfyReceiverMode, options?: { slowMs?: number }): void;
  close(): Promise<void>;
}

const MESSAGE_LIMIT_BYTES = 4096;
// ntfy reads a JSON publish up to twice the message limit, for the JSON overhead.
const JSON_BODY_LIMIT_BYTES = 2 * MESSAGE_LIMIT_BYTES;
const CACHE_DURATION_SECONDS = 12 * 60 * 60;
const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
const RESERVED_TOPICS = new Set([
  "docs",
  "static",
  "file",
  "app",
  "metrics",
  "account",
  "settings",
  "signup",
  "login",
  "v1",
]);
const PRIORITY_NAMES = new Map([
  ["1", 1],
  ["min", 1],
  ["2", 2],
  ["low", 2],
  ["3", 3],
  ["default", 3],
  ["4", 4],
  ["high", 4],
  ["5", 5],
  ["max", 5],
  ["urgent", 5],
]);

/** ntfy's error bodies (server/errors.go, v2.13.0). */
const ERRORS = {
  priorityInvalid: {
    code: 40007,
    http: 400,
    error: "invalid priority parameter",
    link: "https://ntfy.sh/docs/publish/#message-priority",
  },
  topicInvalid: { code: 40009, http: 400, error: "invalid request: topic invalid" },
  topicDisallowed: { code: 40010, http: 400, error: "invalid request: topic name is not allowed" },
  attachmentsDisallowed: {
    code: 40014,
    http: 400,
    error: "invalid request: attachments not allowed",
    link: "https://ntfy.sh/docs/config/#attachments",
  },
  jsonInvalid: { code: 40024, http: 400, error: "invalid request: request body must be valid JSON" },
  unauthorized: {
    code: 40101,
    http: 401,
    error: "unauthorized",
    link: "https://ntfy.sh/docs/publish/#authentication",
  },
  forbidden: {
    code: 40301,
    http: 403,
    error: "forbidden",
    link: "https://ntfy.sh/docs/publish/#authentication",
  },
  notFound: { code: 40401, http: 404, error: "page not found" },
  jsonTooLarge: { code: 41303, http: 413, error: "JSON body too large" },
  internal: { code: 50001, http: 500, error: "internal server error" },
} as const;
type NtfyError = { code: number; http: number; error: string; link?: string };

/** What a publish asks for, before it is checked. */
interface PublishRequest {
  topic: string;
  message: string;
  title?: string;
  priority?: string;
  tags?: string[];
  click?: string;
  markdown: boolean;
}

class Rejection {
  readonly body: NtfyError;
  constructor(body: NtfyError) {
    this.body = body;
  }
}

export async function startNtfyReceiver(options: NtfyReceiverOptions = {}): Promise<NtfyReceiver> {
  let mode = options.mode ?? "ok";
  let slowMs = options.slowMs ?? 10_000;
  const published: PublishedMessage[] = [];
  const requests: ReceivedRequest[] = [];
  const pendingDelays = new Set<NodeJS.Timeout>();

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        pendingDelays.delete(timer);
        resolve();
      }, ms);
      pendingDelays.add(timer);
    });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const received: ReceivedRequest = {
      method: request.method ?? "",
      url: request.url ?? "/",
      headers: request.headers,
      body: body.toString("utf8"),
      receivedAt: Date.now(),
      status: 0,
    };
    requests.push(received);

    if (mode === "slow") await delay(slowMs);
    if (mode === "flood") return answerHostile(response, { streamForever: true });
    const answer = answerTo(request, body);
    received.status = answer.status;
    if ("message" in answer) {
      received.published = answer.message;
      published.push({ ...answer.message, request: received });
    }
    if (!response.destroyed) {
      response.writeHead(answer.status, { "Content-Type": "application/json" });
      response.end(`${JSON.stringify("message" in answer ? answer.message : answer.body)}\n`);
    }
    options.onRequest?.(received);
  }

  function answerTo(
    request: IncomingMessage,
    body: Buffer,
  ): { status: number; message: NtfyMessage } | { status: number; body: object } {
    const { pathname } = new URL(request.url ?? "/", "http://receiver");
    if (request.method === "GET" && pathname === "/v1/health") {
      return { status: 200, body: { healthy: true } };
    }
    try {
      if (mode === "unauthorized") throw new Rejection(ERRORS.unauthorized);
      if (mode === "forbidden") throw new Rejection(ERRORS.forbidden);
      if (mode === "error") throw new Rejection(ERRORS.internal);
      if (mode === "hostile") throw new Rejection({ code: 40000, http: 400, error: hostileText(30_000) });
      if (request.method !== "POST" && request.method !== "PUT") throw new Rejection(ERRORS.notFound);
      // ntfy checks a present Authorization header first, then the body, then write access.
      const authorization = request.headers.authorization;
      if (
        options.token !== undefined &&
        authorization !== undefined &&
        authorization !== `Bearer ${options.token}`
      ) {
        throw new Rejection(ERRORS.unauthorized);
      }
      const publish = pathname === "/" ? readJsonPublish(body) : readPlainPublish(request, pathname, body);
      if (RESERVED_TOPICS.has(publish.topic)) throw new Rejection(ERRORS.topicDisallowed);
      if (options.token !== undefined && authorization === undefined) throw new Rejection(ERRORS.forbidden);
      return { status: 200, message: store(publish) };
    } catch (error) {
      if (error instanceof Rejection) return { status: error.body.http, body: error.body };
      throw error;
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      console.error("ntfy receiver:", error);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    published,
    requests,
    setMode(nextMode, modeOptions = {}) {
      mode = nextMode;
      slowMs = modeOptions.slowMs ?? slowMs;
    },
    async close() {
      for (const timer of pendingDelays) clearTimeout(timer);
      pendingDelays.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readJsonPublish(body: Buffer): PublishRequest {
  if (body.length > JSON_BODY_LIMIT_BYTES) throw new Rejection(ERRORS.jsonTooLarge);
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    throw new Rejection(ERRORS.jsonInvalid);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new Rejection(ERRORS.jsonInvalid);
  }
  const fields = json as Record<string, unknown>;
  // Go's decoder refuses a field of the wrong type as invalid JSON.
  const text = (key: string): string | undefined => {
    const value = fields[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") throw new Rejection(ERRORS.jsonInvalid);
    return value;
  };
  const { priority, tags, markdown } = fields;
  if (priority !== undefined && priority !== null && !Number.isInteger(priority)) {
    throw new Rejection(ERRORS.jsonInvalid);
  }
  if (
    tags !== undefined &&
    tags !== null &&
    !(Array.isArray(tags) && tags.every((tag) => typeof tag === "string"))
  ) {
    throw new Rejection(ERRORS.jsonInvalid);
  }
  const topic = text("topic") ?? "";
  if (!TOPIC.test(topic)) throw new Rejection(ERRORS.topicInvalid);
  return {
    topic,
    message: text("message") ?? "",
    title: text("title"),
    // JSON priority 0 means "not given", like an absent field.
    priority: typeof priority === "number" && priority !== 0 ? String(priority) : undefined,
    tags: (tags as string[] | null | undefined) ?? undefined,
    click: text("click"),
    markdown: markdown === true,
  };
}

function readPlainPublish(request: IncomingMessage, pathname: string, body: Buffer): PublishRequest {
  const topic = pathname.slice(1);
  if (!TOPIC.test(topic)) throw new Rejection(ERRORS.notFound);
  // ntfy would keep a non-UTF-8 body as an attachment, which this receiver, like a default ntfy, refuses.
  if (!isUtf8(body)) throw new Rejection(ERRORS.attachmentsDisallowed);
  const query = new URL(request.url ?? "/", "http://receiver").searchParams;
  const param = (headerNames: string[], queryNames: string[]) => {
    for (const name of headerNames) {
      const value = request.headers[name.toLowerCase()];
      // Node reads header bytes as Latin-1; ntfy (Go) takes them as UTF-8.
      if (typeof value === "string" && value !== "") return Buffer.from(value, "latin1").toString("utf8");
    }
    for (const name of queryNames) {
      const value = query.get(name);
      if (value) return value;
    }
    return undefined;
  };
  const tags = param(["X-Tags", "Tags", "Tag", "Ta"], ["tags", "tag", "ta"]);
  const markdown = param(["X-Markdown", "Markdown", "Md"], ["markdown", "md"]);
  // A bare RFC 9218 "Priority: u=3, i" (added by some proxies) is not ntfy's priority.
  const priority = param(["X-Priority", "Priority", "Prio", "P"], ["priority", "prio", "p"]);
  return {
    topic,
    message: body.toString("utf8"),
    title: param(["X-Title", "Title", "Ti", "T"], ["title", "ti", "t"]),
    priority: priority?.startsWith("u=") ? undefined : priority,
    tags: tags?.split(",").map((tag) => tag.trim()),
    click: param(["X-Click", "Click"], ["click"]),
    markdown:
      ["yes", "true", "1"].includes(markdown?.toLowerCase() ?? "") ||
      request.headers["content-type"] === "text/markdown",
  };
}

function store(publish: PublishRequest): NtfyMessage {
  let priority: number | undefined;
  if (publish.priority !== undefined) {
    priority = PRIORITY_NAMES.get(publish.priority.toLowerCase());
    if (priority === undefined) throw new Rejection(ERRORS.priorityInvalid);
  }
  // A longer body would become an attachment, which this receiver, like a default ntfy, refuses.
  if (Buffer.byteLength(publish.message) > MESSAGE_LIMIT_BYTES) {
    throw new Rejection(ERRORS.attachmentsDisallowed);
  }
  const time = Math.floor(Date.now() / 1000);
  // Key order and omitted empty fields as in ntfy's answers.
  return {
    id: randomId(),
    time,
    expires: time + CACHE_DURATION_SECONDS,
    event: "message",
    topic: publish.topic,
    ...(publish.title ? { title: publish.title } : {}),
    message: publish.message === "" ? "triggered" : publish.message,
    ...(priority !== undefined ? { priority } : {}),
    ...(publish.tags && publish.tags.length > 0 ? { tags: publish.tags } : {}),
    ...(publish.click ? { click: publish.click } : {}),
    ...(publish.markdown ? { content_type: "text/markdown" as const } : {}),
  };
}

function randomId(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(12), (byte) => alphabet[byte % alphabet.length]).join("");
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
