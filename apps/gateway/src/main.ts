import { readFileSync } from "node:fs";
import { createGateway } from "./gateway.ts";
import { settingsReader } from "./settings.ts";

// The gateway as its own process (STACKGATE_PROCESSES=split, the split container images), in front
// of backends and a dashboard server reached over HTTP.
const settings = settingsReader("The gateway");
const { port, host, ...limits } = settings.commonSettings();

const version =
  process.env.STACKGATE_VERSION ??
  (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string })
    .version;

const gateway = createGateway({
  backendUrls: settings.backendUrlsFromEnv(),
  frontendUrl: settings.urlFromEnv("FRONTEND_URL", "http://127.0.0.1:4321"),
  version,
  ...limits,
});

gateway.on("error", (error: NodeJS.ErrnoException) => settings.failToListen(error, host, port));

gateway.listen(port, host, () => {
  console.log(`Stackgate ${version} on http://localhost:${port}`);
});

function stop() {
  gateway.close(() => process.exit(0));
  gateway.closeAllConnections();
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
