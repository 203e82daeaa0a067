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
  UND_ERR_SOCKET: "connection closed unexpectedly",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/**
 * A short human reason for a failed `fetch`, built only from error codes: the raw messages are not
 * used because some (an invalid header value) quote the header, and so the secret.
 */
export function networkFailureReason(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const code = errorCode(cause);
  if (code && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
  if (code && (code.includes("CERT") || code.startsWith("ERR_TLS") || code.startsWith("ERR_SSL"))) {
    return `TLS certificate not accepted (${code})`;
  }
  if (code) return `network error (${code})`;
  if (cause instanceof Error && cause.message === "bad port") return "fetch refuses to connect to that port";
  if (error instanceof TypeError && /header/i.test(error.message)) {
    return "the key or secret contains characters that are not allowed in an HTTP header";
  }
  return "network error";
}

function errorCode(cause: unknown): string | undefined {
  if (typeof cause !== "object" || cause === null) return undefined;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === "string") return code;
  // Connecting to a name with several addresses fails with an AggregateError of per-address errors.
  const first = (cause as { errors?: unknown[] }).errors?.[0];
  return first === undefined ? undefined : errorCode(first);
}
