/**
 * What the backend's own process (main.ts) and the one process that runs the whole service
 * (apps/gateway/src/one-process.ts) share: starting the backend from the environment, and answering
 * requests with it while counting what is in flight, so that a stop can wait for it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { type Backend, createBackend } from "./app.ts";
import { type Config, ConfigError, loadConfig } from "./platform/config.ts";
import { createLogger, type Logger } from "./platform/logger.ts";
import { explainStartupFailure, prepareDataDirectory } from "./platform/startup.ts";

/** sysexits' EX_CONFIG: a supervisor does not restart a process that exits with it. */
export const CONFIG_ERROR_EXIT_CODE = 78;

/**
 * Start-up failures are one line naming the variable, port or path and what to do; no stack trace.
 * A configuration error (a variable that cannot work as set) exits 78, anything else 1.
 */
export function exitWith(line: string, error?: unknown): never {
  console.error(line);
  if (error && process.env.LOG_LEVEL?.match(/^(debug|trace)$/)) console.error(error);
  process.exit(error instanceof ConfigError ? CONFIG_ERROR_EXIT_CODE : 1);
}

/**
 * Reads the configuration, prepares DATA_DIR, opens the database and wires the services; announces
 * the first admin's generated password. Exits the process with one line when any of it fails.
 */
export async function startBackendFromEnvironment(): Promise<{
  config: Config;
  logger: Logger;
  backend: Backend;
}> {
  // Everything the backend writes under DATA_DIR (the database, its WAL and shared-memory files, the
  // auth secret) is for this user only: files 0600, created directories 0700.
  process.umask(0o077);
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
  return { config, logger, backend };
}

export const isEventStreamPath = (url = "") =>
  url.startsWith("/api/v0/deploy/events") || url.startsWith("/rpc/deploy/events");

/**
 * The backend's HTTP answers as a Node request listener, for its own server or for the gateway in
 * the same process. Counts the requests being answered (event streams aside: they last until the
 * client or the backend ends them) and keeps the open event streams, for a graceful stop.
 */
export function createBackendListener(backend: Backend, { hostname }: { hostname?: string } = {}) {
  const handle = getRequestListener(backend.app.fetch, { hostname });
  let answering = 0;
  let whenAllAnswered: (() => void) | undefined;
  const eventStreams = new Set<ServerResponse>();

  function listener(req: IncomingMessage, res: ServerResponse) {
    if (isEventStreamPath(req.url)) {
      if (req.method === "GET") {
        eventStreams.add(res);
        res.once("close", () => eventStreams.delete(res));
      }
    } else {
      answering++;
      res.once("close", () => {
        answering--;
        if (answering === 0) whenAllAnswered?.();
      });
    }
    return handle(req, res);
  }

  return {
    listener,
    /** Requests being answered now, event streams aside. */
    get answering() {
      return answering;
    },
    /** Resolves once no request is being answered (event streams aside), or after `withinMs`. */
    allAnswered(withinMs: number) {
      return new Promise<void>((resolve) => {
        if (answering === 0) return resolve();
        whenAllAnswered = resolve;
        setTimeout(resolve, withinMs).unref();
      });
    },
    /**
     * SSE's reconnection time, for clients that follow it (EventSource), written to every open event
     * stream before they end; whole frames are written, so this never lands inside one.
     */
    askStreamsToReconnectSoon() {
      for (const stream of eventStreams)
        if (stream.headersSent && stream.statusCode === 200 && !stream.writableEnded)
          stream.write("retry: 500\n\n");
    },
  };
}

export type BackendListener = ReturnType<typeof createBackendListener>;
