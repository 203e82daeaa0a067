import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { readiness } from "./http.ts";
import { explainListenFailure } from "./platform/startup.ts";
import { createBackendListener, exitWith, startBackendFromEnvironment } from "./serve.ts";

// The backend as its own process (STACKGATE_PROCESSES=split, the split container images); the one
// process that runs the whole service starts it through the same serve.ts.
const { config, logger, backend } = await startBackendFromEnvironment();
const answers = createBackendListener(backend, { hostname: config.host });

const httpServer = createServer((req: IncomingMessage, res: ServerResponse) => {
  // Once stopping, no connection is kept for another request: the next one goes to another backend.
  if (readiness.draining) res.shouldKeepAlive = false;
  void answers.listener(req, res);
});
httpServer.on("error", (error) => {
  if (httpServer.listening) logger.error({ err: error }, "server error");
  else exitWith(explainListenFailure(error, config.host, config.port), error);
});
httpServer.listen(config.port, config.host, () => {
  const address = httpServer.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = typeof address === "object" && address ? address.address : config.host;
  logger.info({ address: `http://${host}:${port}` }, "backend listening");
});

/** How long a gateway that watches readiness (every second) may take to see the 503 and stop sending. */
const NOTICE_MS = 2000;

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
  await answers.allAnswered(Math.max(0, config.shutdownGraceMs - (Date.now() - started)));
  answers.askStreamsToReconnectSoon();
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
