/*
 * What the clients of outside services (Komodo, ntfy) share: the base URL they are given, and a
 * short reason for a request that failed on the network.
 */

/** The URL without credentials, query or trailing slash (a service may sit under a path), or why it cannot be used. */
export function parseBaseUrl(
  url: string,
  label: string,
): { ok: true; base: string } | { ok: false; error: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, error: `${label} is not a valid URL` };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return { ok: false, error: `${label} must start with http:// or https://` };
  }
  return { ok: true, base: `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}` };
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed unexpectedly",
  UND_ERR_SOCKET: "connection closed",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/**
 * A short human reason for a failed request, built only from error codes: the raw messages are not
 * used because some could quote what was sent.
 */
export function networkFailureReason(error: unknown): string {
  const code = networkErrorCode(error);
  if (code && Object.hasOwn(NETWORK_REASONS, code)) return NETWORK_REASONS[code]!;
  if (code === "ERR_INVALID_CHAR" || code === "ERR_INVALID_HTTP_TOKEN") {
    return "the key or secret contains characters that are not allowed in an HTTP header";
  }
  if (
    code &&
    (/CERT|SELF_SIGNED|UNABLE_TO/.test(code) || code.startsWith("ERR_TLS") || code.startsWith("ERR_SSL"))
  ) {
    return `TLS certificate not accepted (${code})`;
  }
  return code ? `network error (${code})` : "network error";
}

/** The error's code: its own, its first per-address error's, or (fetch) its cause's. */
export function networkErrorCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== "object" || error === null || depth > 4) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  // Connecting to a name with several addresses fails with an AggregateError of per-address errors.
  const first = (error as { errors?: unknown[] }).errors?.[0];
  if (first !== undefined) return networkErrorCode(first, depth + 1);
  return networkErrorCode((error as { cause?: unknown }).cause, depth + 1);
}
