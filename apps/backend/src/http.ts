import type { IncomingMessage } from "node:http";
import type { OpenAPIHandlerOptions } from "@orpc/openapi/fetch";
import { StandardOpenAPICodec, StandardOpenAPIMatcher } from "@orpc/openapi/standard";
import {
  StandardBracketNotationSerializer,
  StandardOpenAPIJsonSerializer,
  StandardOpenAPISerializer,
} from "@orpc/openapi-client/standard";
import { type AnyRouter, ORPCError, onError } from "@orpc/server";
import { FetchHandler, RPCHandler } from "@orpc/server/fetch";
import { ResponseHeadersPlugin } from "@orpc/server/plugins";
import { StandardHandler } from "@orpc/server/standard";
import { canonicalPath, nonCanonicalPathMessage } from "@stackgate/contract/site-path.ts";
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { answeringDomainErrors, answerTo } from "./http-errors.ts";
import { crossOriginGuard } from "./identity/origin-guard.ts";
import { type Auth, SERVED_AUTH_PATHS } from "./identity/sessions/better-auth.ts";
import { loadScalarBundle, referencePage } from "./openapi.ts";
import type { Logger } from "./platform/logger.ts";
import { createMemoryRelease } from "./platform/memory-release.ts";

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * What `GET /health/ready` answers: 200 while the backend takes new requests, 503 ("draining") from
 * the moment it starts stopping, so that a gateway in front of several backends sends it none.
 */
export const readiness = {
  draining: false,
  /** When it was last asked (ms since the epoch; 0 if never): whether a gateway is watching. */
  lastAskedAt: 0,
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const errorJson = (code: string, status: number, message: string) => ({ code, status, message });

/**
 * The REST API's answers are plain JSON values and Dates, which `JSON.stringify` writes exactly as
 * oRPC's generic serializer would (Dates as ISO strings). That serializer copies every value of
 * every answer first: for the 200-stack list, the largest single cost of the request (bench/RESULTS.md).
 * oRPC's `OpenAPIHandler` takes no serializer, only `customJsonSerializers`, which are applied
 * inside that same copy; so the handler is composed from oRPC's exported standard parts, with this
 * subclass of its JSON serializer.
 */
class PlainJsonSerializer extends StandardOpenAPIJsonSerializer {
  override serialize(data: unknown): [unknown, false] {
    return [data, false];
  }
}

/** oRPC's OpenAPI (REST) handler for fetch, with answers written by `JSON.stringify` directly. */
function restHandler<T extends object>(router: AnyRouter, options: OpenAPIHandlerOptions<T>) {
  const json = new PlainJsonSerializer();
  const serializer = new StandardOpenAPISerializer(json, new StandardBracketNotationSerializer(options));
  const codec = new StandardOpenAPICodec(serializer, options);
  const standard = new StandardHandler(router, new StandardOpenAPIMatcher(options), codec, options);
  return new FetchHandler(standard, options);
}

/** An error as the REST API answers it; deploy failures carry `success`, `stack` and `action` beside the message, for pipelines. */
const restErrorBody = (error: ORPCError<string, unknown>) => ({
  ...errorJson(error.code, error.status, error.message),
  ...(isRecord(error.data) ? error.data : {}),
});

export function createHttpApp({
  auth,
  router,
  appUrl,
  logger,
  openApiDocument,
  metricsEndpoint,
  routesAhead = [],
  onRequest = () => {},
}: {
  auth: Auth;
  router: AnyRouter;
  appUrl: string;
  logger: Logger;
  /** Made on the first `GET /doc`: most runs of the backend are never asked for it. */
  openApiDocument: () => Promise<unknown>;
  /** Answers `GET /metrics` (Prometheus). */
  metricsEndpoint?: (request: Request) => Promise<Response>;
  /**
   * `GET` routes served ahead of oRPC's REST handler, for their cost (the event stream, the stack
   * list): their routes stay in the contract, for `/doc` and `/rpc`. What they throw is answered as
   * the REST handler answers it.
   */
  routesAhead?: { path: string; handler: MiddlewareHandler }[];
  /** Told of every answered request (metrics). */
  onRequest?: (method: string, path: string, status: number, seconds: number) => void;
}) {
  const unexpected = (error: unknown) => {
    if (!(error instanceof ORPCError) || error.status === 500) {
      logger.error({ err: error }, "request failed");
    } else if (error.status >= 500) {
      // Komodo refusing, no connection, a timeout, a locked database: expected events, worth a line
      // but not a stack trace.
      logger.warn({ status: error.status, reason: error.message }, "request not served");
    }
  };
  // `resHeaders` lets a procedure add headers to its answer: accepting an invitation sets the session cookie.
  const rpc = new RPCHandler(router, {
    plugins: [new ResponseHeadersPlugin()],
    eventIteratorKeepAliveInterval: 15_000,
    clientInterceptors: [answeringDomainErrors],
    interceptors: [onError(unexpected)],
  });
  const rest = restHandler(router, {
    plugins: [new ResponseHeadersPlugin()],
    clientInterceptors: [answeringDomainErrors],
    interceptors: [onError(unexpected)],
    customErrorResponseBodyEncoder: restErrorBody,
    eventIteratorKeepAliveInterval: 15_000,
  });
  let scalarBundle: Buffer | undefined;

  // After a busy spell, once the backend falls quiet, V8's pages of the spell's garbage go back to
  // the system (idle RSS after 50 listings and the scans they queue: bench/RESULTS.md, issue 13).
  const afterUse = createMemoryRelease({ threshold: 50, quietMs: 5000 });
  const app = new Hono();

  // Asked every second by each gateway in front: answered ahead of the request log and the metrics.
  app.get("/health/ready", (c) => {
    readiness.lastAskedAt = Date.now();
    return readiness.draining
      ? c.json({ status: "draining" }, 503, { "cache-control": "no-store" })
      : c.json({ status: "ok" }, 200, { "cache-control": "no-store" });
  });

  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    const ms = performance.now() - started;
    logger.info(
      { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(ms) },
      "request",
    );
    onRequest(c.req.method, c.req.path, c.res.status, ms / 1000);
    afterUse.ended();
  });

  // As the gateway does: one spelling per route, so nothing counted by path (stream limits, the
  // graceful stop's wait for event streams) is escaped by writing it another way.
  const canonicalOnly: MiddlewareHandler = async (c, next) => {
    const raw = ((c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.url ?? c.req.path).split(
      "?",
    )[0]!;
    const canonical = canonicalPath(raw);
    if (raw === canonical) {
      await next();
      return;
    }
    return c.json(errorJson("NON_CANONICAL_PATH", 400, nonCanonicalPathMessage(canonical)), 400);
  };
  app.use("/api/*", canonicalOnly);
  app.use("/rpc/*", canonicalOnly);

  const bodyLimited = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => c.json(errorJson("PAYLOAD_TOO_LARGE", 413, "The request body is larger than 1 MiB"), 413),
  });
  // Only for requests that may carry a body: Hono's check reads `body`, which turns @hono/node-server's
  // light request into a whole web Request (with its AbortController, URL and Headers), kept as long
  // as the answer lasts: a quarter of what each open event stream held.
  const limitBody: MiddlewareHandler = (c, next) =>
    c.req.method === "GET" || c.req.method === "HEAD" ? next() : bodyLimited(c, next);
  app.use("/api/*", limitBody);
  app.use("/rpc/*", limitBody);
  const refuseCrossOrigin = crossOriginGuard(appUrl);
  app.use("/api/v0/*", refuseCrossOrigin);
  app.use("/rpc/*", refuseCrossOrigin);
  app.use("/api/auth/*", refuseCrossOrigin);
  // A form is what another site may post without asking the browser first: the REST API's bodies
  // are JSON only (no route of the contract documents a form).
  app.use("/api/v0/*", async (c, next) => {
    const headers = c.req.raw.headers;
    const hasBody = headers.has("transfer-encoding") || Number(headers.get("content-length") ?? 0) > 0;
    const type = headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (!hasBody || type === "application/json") return next();
    return c.json(
      errorJson(
        "UNSUPPORTED_MEDIA_TYPE",
        415,
        "The API takes JSON bodies only: send Content-Type: application/json",
      ),
      415,
    );
  });

  app.on(["GET", "POST"], "/api/auth/*", (c) =>
    SERVED_AUTH_PATHS.has(c.req.path)
      ? auth.handler(c.req.raw)
      : c.json(errorJson("NOT_FOUND", 404, `No endpoint ${c.req.method} ${c.req.path}`), 404),
  );

  app.all("/rpc/*", async (c) => {
    const { matched, response } = await rpc.handle(c.req.raw, {
      prefix: "/rpc",
      context: { headers: c.req.raw.headers },
    });
    return matched ? response : c.json(errorJson("NOT_FOUND", 404, "No such procedure"), 404);
  });

  for (const { path, handler } of routesAhead) {
    app.get(path, async (c, next) => {
      try {
        return await handler(c, next);
      } catch (error) {
        const answer = answerTo(error) ?? new ORPCError("INTERNAL_SERVER_ERROR", { cause: error });
        unexpected(answer.status === 500 ? error : answer);
        return c.json(restErrorBody(answer), answer.status as 400);
      }
    });
  }
  app.all("/api/v0/*", async (c) => {
    const { matched, response } = await rest.handle(c.req.raw, { context: { headers: c.req.raw.headers } });
    return matched
      ? response
      : c.json(errorJson("NOT_FOUND", 404, `No endpoint ${c.req.method} ${c.req.path}`), 404);
  });

  let documentOnce: Promise<unknown> | undefined;
  app.get("/doc", async (c) => {
    documentOnce ??= openApiDocument();
    return c.json(await documentOnce);
  });
  if (metricsEndpoint) app.get("/metrics", (c) => metricsEndpoint(c.req.raw));
  app.get("/reference", (c) => c.html(referencePage));
  app.get("/reference/scalar.js", (c) => {
    scalarBundle ??= loadScalarBundle();
    c.header("cache-control", "public, max-age=86400");
    return c.body(new Uint8Array(scalarBundle), 200, { "content-type": "text/javascript; charset=utf-8" });
  });

  app.notFound((c) => c.json(errorJson("NOT_FOUND", 404, `No endpoint ${c.req.method} ${c.req.path}`), 404));
  app.onError((error, c) => {
    const answer = answerTo(error);
    if (answer && answer.status !== 500) {
      logger.warn({ status: answer.status, reason: answer.message, path: c.req.path }, "request not served");
      return c.json(errorJson(answer.code, answer.status, answer.message), answer.status as 400);
    }
    logger.error({ err: error }, "unhandled error");
    return c.json(errorJson("INTERNAL_SERVER_ERROR", 500, "Internal error; see the server log"), 500);
  });
  return app;
}
