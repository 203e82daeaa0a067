import type { KomodoUpdate } from "./answers.ts";

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
  /** A failed Update, with the logs of the stages that ran. */
  readonly update?: KomodoUpdate;

  constructor(
    kind: UpstreamErrorKind,
    message: string,
    options: { status?: number; detail?: string; update?: KomodoUpdate } = {},
  ) {
    super(message);
    this.name = "UpstreamError";
    this.kind = kind;
    if (options.status !== undefined) this.status = options.status;
    if (options.detail) this.detail = options.detail;
    if (options.update) this.update = options.update;
  }
}
