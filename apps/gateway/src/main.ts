import { readFileSync } from "node:fs";
import { createGateway } from "./gateway.ts";

function fail(message: string): never {
  console.error(`Invalid configuration:\n  ${message}`);
  process.exit(1);
}

function urlFromEnv(name: string, fallback: string): string {
  const value = process.env[name] ?? fallback;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    fail(`${name}: not an http(s) URL: ${value}`);
  return value;
}

const port = Number(process.env.PORT ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PORT: not a port number: ${process.env.PORT}`);

const version =
  process.env.STACKGATE_VERSION ??
  (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string })
    .version;

const gateway = createGateway({
  backendUrl: urlFromEnv("BACKEND_URL", "http://127.0.0.1:3000"),
  frontendUrl: urlFromEnv("FRONTEND_URL", "http://127.0.0.1:4321"),
  version,
  trustProxy: process.env.TRUST_PROXY === "true" || process.env.TRUST_PROXY === "1",
});

gateway.listen(port, process.env.GATEWAY_HOST ?? "0.0.0.0", () => {
  console.log(`Stackgate ${version} on http://localhost:${port}`);
});

function stop() {
  gateway.close(() => process.exit(0));
  gateway.closeAllConnections();
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
