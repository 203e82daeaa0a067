/**
 * The whole service in one Node process: the gateway on the one published port, the backend and the
 * dashboard's server behind it, each request handed to their request listeners directly (no loopback
 * connection), and the dashboard rendering its pages with the backend's own `fetch`. `npm start`,
 * `npm run demo` and the `stackgate` image run this; `STACKGATE_PROCESSES=split` (and compose.yml,
 * compose.ha.yml) run the three as processes of their own instead.
 *
 * One part failing stops the whole process, which its supervisor (`npm start`'s, the container's
 * restart policy) starts again: the backend or the dashboard's server failing to start, a listening
 * port taken, an uncaught exception, a promise rejected with nobody to handle it. A page's rendering
 * is the exception the dashboard's own process makes too: Astro logs a rejection during a render, and
 * that page's request ends with an error.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { readiness } from "../../backend/src/http.ts";
import { readVersion } from "../../backend/src/platform/version.ts";
import { startTrivyServer } from "../../backend/src/scans/trivy-server.ts";
import { createBackendListener, startBackendFromEnvironment } from "../../backend/src/serve.ts";
import { createGateway } from "./gateway.ts";
import type { InProcessTarget } from "./in-process.ts";
import { settingsReader } from "./settings.ts";

/** Where the dashboard's server finds the backend's `fetch` (apps/frontend/src/lib/backends.ts). */
const IN_PROCESS_BACKEND = Symbol.for("stackgate.backend.fetch");

/**
 * The dashboard's server is loaded once the API answers: on the first request for a page, or this long
 * after the port opened, whichever comes first. A restart answers pipelines without waiting for the
 * dashboard's modules (their loading holds the one thread for a good part of the start-up).
 */
const FRONTEND_LOAD_DELAY_MS = 500;
/** How long the last answers have to be written, once the backend stopped, before connections are cut. */
const LAST_WRITES_MS = 2000;
/** The longest a stop may take before the process exits anyway. */
const STOP_LIMIT_MS = 10_000;

type NodeListener = (req: IncomingMessage, res: ServerResponse) => unknown;

/** A stop asked for while the service starts: carried out once it has started. */
let stopAsked: string | undefined;
let stop = (signal: string) => {
  stopAsked ??= signal;
};
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));

const settings = settingsReader("Stackgate");
const { port, host, ...limits } = settings.commonSettings();
// The backend's origin checks and alert links follow the gateway's port unless told otherwise.
process.env.APP_URL ||= `http://localhost:${port}`;
const frontendEntry =
  process.env.STACKGATE_FRONTEND_ENTRY ||
  fileURLToPath(new URL("frontend/server/entry.mjs", import.meta.url));
const trivyServerStart = process.env.TRIVY_SERVER_START?.trim() ?? "";
if (!["", "true", "false", "1", "0"].includes(trivyServerStart))
  settings.fail(`TRIVY_SERVER_START must be true or false, not "${trivyServerStart}": fix or unset it.`);

const { config, logger, backend } = await startBackendFromEnvironment();
const version = readVersion();
const answers = createBackendListener(backend, { hostname: config.host });
// The scanner's server, in the one container (the `stackgate` image sets TRIVY_SERVER_START=true).
const trivyServer =
  trivyServerStart === "true" || trivyServerStart === "1"
    ? startTrivyServer({
        bin: config.trivy.bin,
        serverUrl: config.trivy.serverUrl,
        cacheDir: process.env.TRIVY_CACHE_DIR || join(config.dataDir, "trivy-cache"),
      })
    : undefined;

/** Set while the dashboard's server renders: a promise rejected there is Astro's to log. */
const rendering = new AsyncLocalStorage<true>();
process.on("unhandledRejection", (reason) => {
  if (rendering.getStore()) return;
  console.error("Stackgate stops: a promise was rejected and nothing handled it.", reason);
  process.exit(1);
});

let stopping = false;
let pagesAnswering = 0;
let whenPagesAnswered: (() => void) | undefined;

let frontendLoading: Promise<NodeListener> | undefined;
/** Loads the dashboard's server once; a dashboard that cannot load stops the whole process. */
function frontendListener(): Promise<NodeListener> {
  frontendLoading ??= (async () => {
    // Out of any page's rendering: the backend's own failures are not the dashboard's to swallow.
    (globalThis as Record<symbol, unknown>)[IN_PROCESS_BACKEND] = (request: Request) =>
      rendering.exit(() => backend.app.fetch(request));
    // Astro's standalone server would listen on a port of its own: only its request listener is used.
    process.env.ASTRO_NODE_AUTOSTART = "disabled";
    const module = (await import(pathToFileURL(frontendEntry).href)) as { handler?: NodeListener };
    if (typeof module.handler !== "function") throw new Error(`${frontendEntry} exports no request handler`);
    return module.handler;
  })();
  frontendLoading.catch((error: unknown) => {
    console.error(
      `Stackgate stops: the dashboard's server cannot be loaded from ${frontendEntry} (${error instanceof Error ? error.message : error}). Build it (npm start builds what is missing) or set STACKGATE_FRONTEND_ENTRY.`,
    );
    process.exit(1);
  });
  return frontendLoading;
}

const backendTarget: InProcessTarget = {
  handle(req, res) {
    // Once stopping, no connection is kept for another request.
    if (stopping) res.shouldKeepAlive = false;
    return answers.listener(req, res);
  },
  notReady: () => (readiness.draining ? "stopping" : undefined),
};

const frontendTarget: InProcessTarget = {
  handle(req, res) {
    if (stopping) res.shouldKeepAlive = false;
    pagesAnswering++;
    res.once("close", () => {
      pagesAnswering--;
      if (pagesAnswering === 0) whenPagesAnswered?.();
    });
    return frontendListener().then((listener) => rendering.run(true, () => listener(req, res)));
  },
};

const gateway = createGateway({ backend: backendTarget, frontend: frontendTarget, version, ...limits });
gateway.on("error", (error: NodeJS.ErrnoException) => settings.failToListen(error, host, port));
gateway.listen(port, host, () => {
  console.log(`Stackgate ${version} on http://localhost:${port}`);
  setTimeout(() => void frontendListener(), FRONTEND_LOAD_DELAY_MS).unref();
});

const pagesAnswered = (withinMs: number) =>
  new Promise<void>((resolve) => {
    if (pagesAnswering === 0) return resolve();
    whenPagesAnswered = resolve;
    setTimeout(resolve, withinMs).unref();
  });

/**
 * No new connections; /health/ready answers 503; the requests and pages being answered are answered
 * (deploys get the grace period); event streams end with a hint to reconnect soon; the backend stops
 * in order (deploys recorded, scans marked interrupted, the database closed); then the process exits.
 */
stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  readiness.draining = true;
  logger.info({ signal }, "Stackgate stopping");
  setTimeout(() => {
    logger.error(`Stackgate did not stop within ${STOP_LIMIT_MS / 1000} s; exiting anyway`);
    process.exit(1);
  }, STOP_LIMIT_MS).unref();
  const started = Date.now();
  const graceLeft = () => Math.max(0, config.shutdownGraceMs - (Date.now() - started));
  const closed = new Promise((resolve) => gateway.close(resolve));
  // Kept-alive connections close as soon as they fall idle.
  const reaper = setInterval(() => gateway.closeIdleConnections(), 50);
  await Promise.all([answers.allAnswered(graceLeft()), pagesAnswered(graceLeft())]);
  answers.askStreamsToReconnectSoon();
  await Promise.all([backend.close({ graceMs: graceLeft() }), trivyServer?.stop()]);
  // The last answers and the streams' last events are still being written: each connection closes
  // once it falls idle; one that does not within the moment left is cut.
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, LAST_WRITES_MS))]);
  clearInterval(reaper);
  gateway.closeAllConnections();
  logger.info("Stackgate stopped");
  process.exit(0);
};
if (stopAsked) void stop(stopAsked);
