import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { serve } from "@hono/node-server";
import { type Backend, createBackend } from "./app.ts";
import { readiness } from "./http.ts";
import { type Config, ConfigError, loadConfig } from "./platform/config.ts";
import { createLogger } from "./platform/logger.ts";
import { explainListenFailure, explainStartupFailure, prepareDataDirectory } from "./platform/startup.ts";

// Everything the backend writes under DATA_DIR (the database, its WAL and shared-memory files, the
// auth secret) is for this user only: files 0600, created directories 0700.
process.umask(0o077);

/** sysexits' EX_CONFIG: `npm start`'s supervisor does not restart a process that exits with it. */
const CONFIG_ERROR_EXIT_CODE = 78;

/**
 * Start-up failures are one line naming the variable, port or path and what to do; no stack trace.
 * A configuration error (a variable that cannot work as set) exits 78, anything else 1.
 */
function exitWith(line: string, error?: unknown): never {
  console.error(line);
  if (error && process.env.LOG_LEVEL?.match(/^(debug|trace)$/)) console.error(error);
  process.exit(error instanceof ConfigError ? CONFIG_ERROR_EXIT_CODE : 1);
}

let config: Config;
try {
  config = loadConfig();
  prepareDataDirectory(config.dataDir);
} catch (error) {
  exitWith(error instanceof ConfigError ? error.message : String(error), error);
}

const logger = createLogger(config.logLevel);
let backend: Backend;
try {
  backend = await createBackend({ config, logger });
} catch (error) {
  exitWith(explainStartupFailure(error, config.databasePath), error);
}

if (backend.seeded.generatedPassword) {
  // Announced on the console, never logged: on every start until this admin first signs in.
  console.log(
    [
      "",
      "  First sign-in for Stackgate",
      `    email:    ${backend.seeded.email}`,
      `    password: ${backend.seeded.generatedPassword}`,
      "  (shown on every start until the first sign-in; set SEED_ADMIN_PASSWORD to choose it yourself,",
      "   or run `npm run reset-password -- <email>` to set a new one)",
      "",
    ].join("\n"),
  );
}

const server = serve({ fetch: backend.app.fetch, hostname: config.host, port: config.port }, (info) => {
  logger.info({ address: `http://${info.address}:${info.port}` }, "backend listening");
});
server.on("error", (error) => {
  if (server.listening) logger.error({ err: error }, "server error");
  else exitWith(explainListenFailure(error, config.host, config.port), error);
});

const httpServer = server as Server;
/** How long a gateway that watches readiness (every second) may take to see the 503 and stop sending. */
const NOTICE_MS = 2000;
const isEventStream = (url = "") =>
  url.startsWith("/api/v0/deploy/events") || url.startsWith("/rpc/deploy/events");
/** Requests being answered, event streams aside (they last until the client or the backend ends them). */
let answering = 0;
let whenAllAnswered: (() => void) | undefined;
const eventStreams = new Set<ServerResponse>();
httpServer.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
  // Once stopping, no connection is kept for another request: the next one goes to another backend.
  if (readiness.draining) res.shouldKeepAlive = false;
  if (isEventStream(req.url)) {
    if (req.method === "GET") {
      eventStreams.add(res);
      res.once("close", () => eventStreams.delete(res));
    }
    return;
  }
  answering++;
  res.once("close", () => {
    answering--;
    if (answering === 0) whenAllAnswered?.();
  });
});
const allAnswered = (withinMs: number) =>
  new Promise<void>((resolve) => {
    if (answering === 0) return resolve();
    whenAllAnswered = resolve;
    setTimeout(resolve, withinMs).unref();
  });

let stopping = false;
/**
 * Readiness answers 503 at once; a gateway that watches it gets `NOTICE_MS` to stop sending new
 * requests; the requests already here are answered (deploys get the grace period); only then does the
 * listener close, and event streams end with a hint to reconnect soon (to another backend).
 */
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  readiness.draining = true;
  logger.info({ signal }, "backend stopping");
  setTimeout(() => {
    logger.error("backend did not stop within 10 s; exiting anyway");
    process.exit(1);
  }, 10_000).unref();
  const started = Date.now();
  if (started - readiness.lastAskedAt < 5 * NOTICE_MS)
    await new Promise((resolve) => setTimeout(resolve, NOTICE_MS));
  await allAnswered(Math.max(0, config.shutdownGraceMs - (Date.now() - started)));
  // SSE's reconnection time, for clients that follow it (EventSource); whole frames are written, so
  // this never lands inside one.
  for (const stream of eventStreams)
    if (stream.headersSent && stream.statusCode === 200 && !stream.writableEnded)
      stream.write("retry: 500\n\n");
  const closed = new Promise((resolve) => httpServer.close(resolve));
  await backend.close({ graceMs: Math.max(0, config.shutdownGraceMs - (Date.now() - started)) });
  // The last answers are still being written: close each connection once it falls idle.
  const reaper = setInterval(() => httpServer.closeIdleConnections(), 50);
  await closed;
  clearInterval(reaper);
  logger.info("backend stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
