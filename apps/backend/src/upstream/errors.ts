export type UpstreamErrorKind =
  /** No connection could be made, or it broke (refused, unknown host, reset, TLS). */
  | "unreachable"
  /** No answer in time, or an Update not complete by its deadline. */
  | "timeout"
  /** Komodo answered with an error status, usually with its own `{error, trace}` message. */
  | "rejected"
  /** Komodo answered 200 with something that is not what the request returns. */
  | "bad-response"
  /** An action's Update completed with `success: false`. */
  | "failed-update";

/** The one error the upstream client throws. Its texts never contain the key or the secret. */
export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  /** The HTTP status Komodo answered with, when it answered. */
  readonly status?: number;
  /** More context: Komodo's error trace, or the id of a failed Update. */
  readonly detail?: string;

  constructor(kind: UpstreamErrorKind, message: string, options: { status?: number; detail?: string } = {}) {
    super(message);
    this.name = "UpstreamError";
    this.kind = kind;
    if (options.status !== undefined) this.status = options.status;
    if (options.detail) this.detail = options.detail;
  }
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed unexpectedly",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/**
 * A short human reason for a failed request, built only from error codes: the raw messages are not
 * used because some could quote what was sent.
 */
export function networkFailureReason(error: unknown): string {
  const code = errorCode(error);
  if (code && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
  if (code === "ERR_INVALID_CHAR" || code === "ERR_INVALID_HTTP_TOKEN") {
    return "the key or secret contains characters that are not allowed in an HTTP header";
  }
  if (code && (code.includes("CERT") || code.startsWith("ERR_TLS") || code.startsWith("ERR_SSL"))) {
    return `TLS certificate not accepted (${code})`;
  }
  return code ? `network error (${code})` : "network error";
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  // Connecting to a name with several addresses fails with an AggregateError of per-address errors.
  const first = (error as { errors?: unknown[] }).errors?.[0];
  return first === undefined ? undefined : errorCode(first);
}
