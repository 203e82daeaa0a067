import type { Connection } from "./config.ts";
import { CliError, EXIT, printable } from "./exit.ts";

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field where they are used
  json: any;
  /** How many attempts it took; more than one means an earlier one may have reached Stackgate too. */
  attempts: number;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Retry transient failures (a proxy's 429/502/503/504, a dropped connection) until this time (epoch ms); default no retry. */
  retryUntil?: number;
  /**
   * No run exists yet: a refused connection, before any attempt reached Stackgate, means a wrong
   * address or a Stackgate that is down, and fails at once instead of being retried.
   */
  beforeRun?: boolean;
  signal?: AbortSignal;
  /** The time limit of one attempt; default 30 s. */
  attemptTimeoutMs?: number;
}

export interface Api {
  readonly baseUrl: string;
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  /** Opens a streaming GET (the event stream); throws on a connection failure. */
  open(path: string, signal: AbortSignal): Promise<Response>;
}

export interface ApiOptions {
  /** Told before each retry why it retries, e.g. to print it. */
  onRetry?: (reason: string, delayMs: number) => void;
  /** Backoff before retry `n` (0-based); default 1 s doubling to 10 s, with jitter. */
  backoffMs?: (attempt: number) => number;
}

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

export const defaultBackoffMs = (attempt: number) =>
  Math.min(10_000, 1_000 * 2 ** attempt) * (0.8 + Math.random() * 0.4);

/**
 * Whether an answer is worth sending the same request again: a proxy's or the gateway's 502/503/504
 * (the backend restarting, a proxy's time limit) or a 429. A deploy answer (`success: false`: Komodo
 * failed the action, no Komodo connection) is Stackgate's verdict and is not retried.
 */
function isTransient(answer: Answer): boolean {
  return RETRIED_STATUSES.has(answer.status) && answer.json?.success !== false;
}

/** What went wrong with a connection, without anything of the request (never a header). */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return "no answer in time";
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return printable(cause?.code ?? cause?.message ?? error.message);
}

type FailureKind = "dns" | "refused" | "tls" | "other";

/** The kind of a connection failure: those that say the address is wrong are not worth retrying. */
function failureKind(error: unknown): FailureKind {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === "string" ? cause.code : "";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return "dns";
  if (code === "ECONNREFUSED") return "refused";
  if (
    /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/.test(code) ||
    /certificate|SSL routines/i.test(typeof cause?.message === "string" ? cause.message : "")
  )
    return "tls";
  return "other";
}

/** Waits `ms`, or less when `signal` aborts first. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const aborted = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }, ms);
    signal?.addEventListener("abort", aborted, { once: true });
  });

/** Whether an answer is a web page rather than JSON from an API. */
const isWebPage = (answer: Answer) =>
  /text\/html/i.test(answer.headers.get("content-type") ?? "") || /^\s*</.test(answer.text);

export function createApi(connection: Connection, options: ApiOptions = {}): Api {
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  const headersFor = (extra: Record<string, string> = {}) => ({
    "x-api-key": connection.apiKey,
    "user-agent": "stackgate-cli",
    ...extra,
  });
  /** Names the address and where it came from: a wrong one is the usual cause of what follows. */
  const address = `${connection.urlSource} (${connection.baseUrl})`;

  /** A connection failure that retrying cannot mend, as the error to end with; undefined otherwise. */
  function permanentFailure(error: unknown, refusedIsPermanent: boolean): CliError | undefined {
    const reason = describeFailure(error);
    const host = new URL(connection.baseUrl).hostname;
    switch (failureKind(error)) {
      case "dns":
        return new CliError(
          `Could not reach Stackgate: the host '${host}' in ${address} does not resolve (${reason}). Check its spelling.`,
          EXIT.failed,
        );
      case "tls":
        return new CliError(
          `Could not reach Stackgate: TLS failed with ${address} (${reason}). Check http:// or https:// and the port, and that the server's certificate is valid for '${host}'.`,
          EXIT.failed,
        );
      case "refused":
        return refusedIsPermanent
          ? new CliError(
              `Could not reach Stackgate: nothing accepts connections at ${address} (${reason}). Check the port, and that Stackgate is running.`,
              EXIT.failed,
            )
          : undefined;
      default:
        return undefined;
    }
  }

  /** An answer that did not come from Stackgate's API: a web page, or a 404 for a path it serves. */
  function wrongAddress(answer: Answer, method: string, path: string): CliError | undefined {
    // Stackgate's own 404s name what is missing (a run); "No endpoint" is its answer to a path it does not serve.
    const stackgates404 =
      answer.json?.code === "NOT_FOUND" && !/^No endpoint /.test(String(answer.json?.message));
    const notTheApi = isWebPage(answer) || (answer.status === 404 && !stackgates404);
    if (!notTheApi || RETRIED_STATUSES.has(answer.status)) return undefined;
    const what = isWebPage(answer) ? "a web page" : "a 404";
    return new CliError(
      `${address} does not look like Stackgate's address: ${method} ${path.split("?")[0]} answered ${what} ` +
        `(${statusLine(answer).slice(0, 100)}), not Stackgate's API. Set it to the address ` +
        "the dashboard is served at, e.g. https://stackgate.example.com (an older Stackgate may lack this endpoint).",
      EXIT.failed,
    );
  }

  async function attempt(method: string, path: string, options: CallOptions, attempts: number) {
    const headers: Record<string, string> = headersFor(options.headers);
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const signals = [AbortSignal.timeout(options.attemptTimeoutMs ?? 30_000)];
    if (options.signal) signals.push(options.signal);
    const response = await fetch(connection.baseUrl + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.any(signals),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json, attempts };
  }

  return {
    baseUrl: connection.baseUrl,
    async call(method, path, callOptions = {}) {
      const retryUntil = callOptions.retryUntil ?? 0;
      let reached = false;
      for (let tries = 0; ; tries++) {
        let answer: Answer | undefined;
        let reason: string;
        try {
          answer = await attempt(method, path, callOptions, tries + 1);
          reached = true;
          const wrong = wrongAddress(answer, method, path);
          if (wrong) throw wrong;
          if (!isTransient(answer)) return answer;
          reason = statusLine(answer);
        } catch (error) {
          if (error instanceof CliError || callOptions.signal?.aborted) throw error;
          const permanent = permanentFailure(error, callOptions.beforeRun === true && !reached);
          if (permanent) throw permanent;
          // A timeout or a dropped connection may have reached Stackgate: from here on, so may any attempt.
          reached = true;
          reason = describeFailure(error);
        }
        const delay = backoffMs(tries);
        if (Date.now() + delay > retryUntil) {
          if (answer) return answer;
          throw new CliError(`Could not reach Stackgate at ${address}: ${reason}`, EXIT.failed);
        }
        options.onRetry?.(reason, delay);
        await sleep(delay, callOptions.signal);
        if (callOptions.signal?.aborted) throw callOptions.signal.reason;
      }
    },
    open(path, signal) {
      return fetch(connection.baseUrl + path, {
        headers: headersFor({ accept: "text/event-stream" }),
        signal,
      });
    },
  };
}

/** The message of an error answer: Stackgate's JSON `message`, a web page's title, or the start of a body. */
export function answerMessage(answer: Pick<Answer, "json" | "text">): string {
  if (typeof answer.json?.message === "string") return printable(answer.json.message);
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(answer.text)?.[1]?.replace(/\s+/g, " ").trim();
  if (title) return printable(title.slice(0, 200));
  const text = answer.text
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return printable(text.slice(0, 200)) || "(no body)";
}

/** The status and the message of an answer, the status once: `502 Bad Gateway`, `500: Internal error`. */
export function statusLine(answer: Pick<Answer, "status" | "json" | "text">): string {
  const message = answerMessage(answer);
  return message === String(answer.status) || message.startsWith(`${answer.status} `)
    ? message
    : `${answer.status}: ${message}`;
}

/**
 * The CliError of an answer that is not the one wanted: 401 and 403 (the key) and 400 (the request)
 * are usage errors (2); anything else is a failure (1).
 */
export function unexpectedAnswer(answer: Answer, what: string): CliError {
  const message = answerMessage(answer);
  if (answer.status === 401)
    return new CliError(
      `Stackgate refused the API key (401): ${message}. Check STACKGATE_API_KEY / --api-key: the key may be mistyped, revoked or expired.`,
      EXIT.usage,
    );
  if (answer.status === 403)
    return new CliError(`Stackgate refused to ${what} (403): ${message}`, EXIT.usage);
  if (answer.status === 400 || answer.status === 422)
    return new CliError(`Stackgate refused the request (${answer.status}): ${message}`, EXIT.usage);
  return new CliError(`Could not ${what}: Stackgate answered ${statusLine(answer)}`, EXIT.failed);
}
