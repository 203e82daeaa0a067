/**
 * The gateway's settings from the environment, for its own process (main.ts) and for the one process
 * that runs the whole service (one-process.ts). A bad value stops the start with one line naming the
 * variable and exit code 78.
 */

/** sysexits' EX_CONFIG: a supervisor does not restart a process that exits with it. */
export const CONFIG_ERROR_EXIT_CODE = 78;

/** A URL for a message: credentials written into it (`http://user:secret@host`) are left out. */
export const withoutCredentials = (text: string) => text.replace(/\/\/[^/@]*@/g, "//…@");

/** Reads the gateway's variables; `who` names the program in the one line a bad value prints. */
export function settingsReader(who: string) {
  /** One line naming what is wrong and what to do; no stack trace. */
  function fail(message: string): never {
    console.error(`${who} cannot start: ${message}`);
    process.exit(CONFIG_ERROR_EXIT_CODE);
  }

  function urlFromEnv(name: string, fallback: string): string {
    const value = process.env[name] || fallback;
    if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
      fail(`${name} is not an http(s) URL ("${withoutCredentials(value)}"): fix or unset it.`);
    return value;
  }

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

  /** What the gateway does the same way whatever its targets: where it listens, and its limits. */
  function commonSettings() {
    return {
      port: integerFromEnv("PORT", 8080, 0, 65535),
      host: process.env.GATEWAY_HOST || "0.0.0.0",
      trustProxy: process.env.TRUST_PROXY === "true" || process.env.TRUST_PROXY === "1",
      streamsPerClient: integerFromEnv("MAX_STREAMS_PER_CLIENT", 20, 1, 1_000_000),
      headersTimeoutMs: integerFromEnv("REQUEST_HEADERS_TIMEOUT_SECONDS", 10, 1, 3600) * 1000,
      bodyTimeoutMs: integerFromEnv("REQUEST_BODY_TIMEOUT_SECONDS", 30, 1, 3600) * 1000,
    };
  }

  /** The one line for an error of the listening socket, then exit 78. */
  function failToListen(error: NodeJS.ErrnoException, host: string, port: number): never {
    if (error.code === "EADDRINUSE")
      fail(`port ${port} (PORT) is already in use: stop the program holding it, or set PORT to a free port.`);
    if (error.code === "EACCES")
      fail(`port ${port} (PORT) needs privileges this user does not have: set PORT to 1024 or above.`);
    if (error.code === "EADDRNOTAVAIL")
      fail(`GATEWAY_HOST "${host}" is not an address of this machine: fix or unset it.`);
    fail(`cannot listen on ${host}:${port} (${error.code ?? error.message}).`);
  }

  return { fail, urlFromEnv, backendUrlsFromEnv, integerFromEnv, commonSettings, failToListen };
}
