import { CliError, EXIT } from "./exit.ts";

export interface Connection {
  /** Stackgate's public address, without a trailing slash, e.g. `https://stackgate.example.com`. */
  baseUrl: string;
  /** Where the address came from, to name it when it looks wrong. */
  urlSource: "STACKGATE_URL" | "--url";
  apiKey: string;
}

/** Where Stackgate is and the key to use: the flags win over STACKGATE_URL and STACKGATE_API_KEY. */
export function resolveConnection(
  flags: { url?: string; "api-key"?: string },
  env: Record<string, string | undefined>,
): Connection {
  const url = (flags.url ?? env.STACKGATE_URL ?? "").trim();
  const apiKey = (flags["api-key"] ?? env.STACKGATE_API_KEY ?? "").trim();
  if (!url)
    throw new CliError("Stackgate's address is missing: set STACKGATE_URL or pass --url.", EXIT.usage);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`STACKGATE_URL / --url is not a URL: ${url}`, EXIT.usage);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new CliError("STACKGATE_URL / --url must start with http:// or https://", EXIT.usage);
  if (parsed.username || parsed.password)
    throw new CliError("STACKGATE_URL / --url must not hold a user or password; use the API key", EXIT.usage);
  if (!apiKey)
    throw new CliError(
      "The API key is missing: set STACKGATE_API_KEY (or pass --api-key). Create one in Stackgate under Settings → API keys.",
      EXIT.usage,
    );
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\u0000-\u001f]/.test(apiKey))
    throw new CliError("The API key holds spaces or control characters; copy it again", EXIT.usage);
  return {
    baseUrl: `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`,
    urlSource: flags.url === undefined ? "STACKGATE_URL" : "--url",
    apiKey,
  };
}
