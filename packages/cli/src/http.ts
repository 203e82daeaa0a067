import type { Connection } from "./config.ts";
import { CliError, EXIT, printable } from "./exit.ts";

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field where they are used
  json: any;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Retry connection failures and proxies' 429/502/503/504 until this time (epoch ms); default no retry. */
  retryUntil?: number;
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

export function createApi(connection: Connection, options: ApiOptions = {}): Api {
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  const headersFor = (extra: Record<string, string> = {}) => ({
    "x-api-key": connection.apiKey,
    "user-agent": "stackgate-cli",
    ...extra,
  });

  async function attempt(method: string, path: string, options: CallOptions): Promise<Answer> {
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
    return { status: response.status, headers: response.headers, text, json };
  }

  return {
    baseUrl: connection.baseUrl,
    async call(method, path, callOptions = {}) {
      const retryUntil = callOptions.retryUntil ?? 0;
      for (let tries = 0; ; tries++) {
        let answer: Answer | undefined;
        let reason: string;
        try {
          answer = await attempt(method, path, callOptions);
          if (!isTransient(answer)) return answer;
          reason = `${answer.status} ${answerMessage(answer)}`;
        } catch (error) {
          if (callOptions.signal?.aborted) throw error;
          reason = describeFailure(error);
        }
        const delay = backoffMs(tries);
        if (Date.now() + delay > retryUntil) {
          if (answer) return answer;
          throw new CliError(`Could not reach Stackgate at ${connection.baseUrl}: ${reason}`, EXIT.failed);
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

/** The message of an error answer: Stackgate's JSON `message`, or the start of a proxy's page. */
export function answerMessage(answer: Answer): string {
  if (typeof answer.json?.message === "string") return printable(answer.json.message);
  const text = answer.text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return printable(text.slice(0, 200)) || "(no body)";
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
  return new CliError(`Could not ${what}: Stackgate answered ${answer.status}: ${message}`, EXIT.failed);
}
