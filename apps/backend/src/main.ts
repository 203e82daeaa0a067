import { serve } from "@hono/node-server";
import { type Backend, createBackend } from "./app.ts";
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

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "backend stopping");
  setTimeout(() => {
    logger.error("backend did not stop within 10 s; exiting anyway");
    process.exit(1);
  }, 10_000).unref();
  const httpServer = server as import("node:http").Server;
  const closed = new Promise((resolve) => httpServer.close(resolve));
  await backend.close({ graceMs: config.shutdownGraceMs });
  // The last answers are still being written: close each connection once it falls idle.
  const reaper = setInterval(() => httpServer.closeIdleConnections(), 50);
  await closed;
  clearInterval(reaper);
  logger.info("backend stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
