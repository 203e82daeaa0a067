import { serve } from "@hono/node-server";
import { createBackend } from "./app.ts";
import { ConfigError, loadConfig } from "./platform/config.ts";
import { createLogger } from "./platform/logger.ts";

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}

const logger = createLogger(config.logLevel);
const backend = await createBackend({ config, logger });

if (backend.seeded.created && backend.seeded.generatedPassword) {
  // Printed once, on purpose, and never logged: the only way to learn a generated first password.
  console.log(
    [
      "",
      "  First sign-in for Stackgate",
      `    email:    ${backend.seeded.email}`,
      `    password: ${backend.seeded.generatedPassword}`,
      "  (shown once; set SEED_ADMIN_PASSWORD to choose it yourself)",
      "",
    ].join("\n"),
  );
}

const server = serve({ fetch: backend.app.fetch, hostname: config.host, port: config.port }, (info) => {
  logger.info({ address: `http://${info.address}:${info.port}` }, "backend listening");
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
