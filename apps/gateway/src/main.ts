import { readFileSync } from "node:fs";
import { createGateway } from "./gateway.ts";

/** sysexits' EX_CONFIG: `npm start`'s supervisor does not restart a process that exits with it. */
const CONFIG_ERROR_EXIT_CODE = 78;

/** One line naming what is wrong and what to do; no stack trace. */
function fail(message: string): never {
  console.error(`The gateway cannot start: ${message}`);
  process.exit(CONFIG_ERROR_EXIT_CODE);
}

function urlFromEnv(name: string, fallback: string): string {
  const value = process.env[name] || fallback;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    fail(`${name} is not an http(s) URL ("${withoutCredentials(value)}"): fix or unset it.`);
  return value;
}

/** A URL for a message: credentials written into it (`http://user:secret@host`) are left out. */
const withoutCredentials = (text: string) => text.replace(/\/\/[^/@]*@/g, "//…@");

/** `BACKEND_URLS` (comma-separated) when set, else `BACKEND_URL`, else the local default. */
function backendUrlsFromEnv(): string[] {
  const list = process.env.BACKEND_URLS;
  if (!list) return [urlFromEnv("BACKEND_URL", "http://127.0.0.1:3000")];
  const urls = list.split(",").map((each) => each.trim());
  if (urls.every((url) => url === ""))
    fail(
      `BACKEND_URLS is empty ("${list}"): list the backends' http(s) URLs separated by commas, or unset it.`,
    );
  for (const url of urls)
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      fail(
        `BACKEND_URLS has "${withoutCredentials(url)}", which is not an http(s) URL ("${withoutCredentials(list)}"): fix or unset it.`,
      );
  return urls;
}

function integerFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    fail(`${name} must be a whole number from ${min} to ${max}, not "${raw}": fix or unset it.`);
  return value;
}

const port = integerFromEnv("PORT", 8080, 0, 65535);
const host = process.env.GATEWAY_HOST || "0.0.0.0";

const version =
  process.env.STACKGATE_VERSION ??
  (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string })
    .version;

const gateway = createGateway({
  backendUrls: backendUrlsFromEnv(),
  frontendUrl: urlFromEnv("FRONTEND_URL", "http://127.0.0.1:4321"),
  version,
  trustProxy: process.env.TRUST_PROXY === "true" || process.env.TRUST_PROXY === "1",
  streamsPerClient: integerFromEnv("MAX_STREAMS_PER_CLIENT", 20, 1, 1_000_000),
  headersTimeoutMs: integerFromEnv("REQUEST_HEADERS_TIMEOUT_SECONDS", 10, 1, 3600) * 1000,
  bodyTimeoutMs: integerFromEnv("REQUEST_BODY_TIMEOUT_SECONDS", 30, 1, 3600) * 1000,
});

gateway.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EADDRINUSE")
    fail(`port ${port} (PORT) is already in use: stop the program holding it, or set PORT to a free port.`);
  if (error.code === "EACCES")
    fail(`port ${port} (PORT) needs privileges this user does not have: set PORT to 1024 or above.`);
  if (error.code === "EADDRNOTAVAIL")
    fail(`GATEWAY_HOST "${host}" is not an address of this machine: fix or unset it.`);
  fail(`cannot listen on ${host}:${port} (${error.code ?? error.message}).`);
});

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
