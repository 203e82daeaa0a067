/**
 * One try to hand an alert to a service, and what came of it. Every kind's send answers with an
 * Attempt, never throws, waits no longer than its time limit, reads at most 64 KiB of an answer and
 * never puts a secret into what it says.
 */

import { networkFailureReason } from "../../platform/network.ts";
import { cleanUpstreamLabel, limitLength } from "../../upstream/text.ts";
import type { AlertMessage } from "../message.ts";

export interface Attempt {
  delivered: boolean;
  /** The service's answer: an HTTP status (for email, the SMTP reply code); null without one. */
  status: number | null;
  /** What the service said, as a sentence a person can act on. */
  message: string;
  /** Whether trying again may help: network errors, time-outs, 5xx and 429 (SMTP: 4xx replies). */
  retry: boolean;
  /** How long the service asked to wait before the next try (Retry-After). */
  retryAfterMs?: number;
}

export interface SendContext {
  timeoutMs: number;
  /** The delivery's id: the same on every attempt of one alert (a webhook's `webhook-id`). */
  deliveryId: string;
  /** Now, in milliseconds since the epoch. */
  now: () => number;
  /** Aborted when Stackgate stops. */
  signal?: AbortSignal;
}

/** A channel kind's way of sending: its settings without secrets, its secrets, and the message. */
export type Send<Settings, Secrets> = (
  target: { settings: Settings; secrets: Secrets },
  message: AlertMessage,
  context: SendContext,
) => Promise<Attempt>;

const ANSWER_LIMIT_BYTES = 64 * 1024;
const REASON_LIMIT = 200;

export interface JsonPost {
  /** The service's name in messages ("Slack"). */
  service: string;
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  /** Every secret in the request: none of them appears in what the attempt says. */
  secrets: readonly (string | undefined | null)[];
  /** Reads a 2xx answer: delivered, or why not (an API that answers 200 with an error). */
  accepted?: (
    answer: unknown,
    text: string,
  ) => { delivered: true; detail?: string } | { delivered: false; reason: string };
  /** A reason the service gives in its error body, when it has its own shape. */
  reasonOf?: (answer: unknown) => string | undefined;
  /** A wait the service asks for in its body (Telegram's `parameters.retry_after`). */
  retryAfterOf?: (answer: unknown) => number | undefined;
}

/** POSTs JSON to a service and says how it went. */
export async function postJson(post: JsonPost, context: SendContext): Promise<Attempt> {
  const attempt = await postJsonUnredacted(post, context);
  return { ...attempt, message: redact(attempt.message, post.secrets) };
}

async function postJsonUnredacted(
  { service, url, body, headers = {}, accepted, reasonOf, retryAfterOf }: JsonPost,
  { timeoutMs, signal }: SendContext,
): Promise<Attempt> {
  const host = hostOf(url);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "Stackgate", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
      // A redirected POST comes back as a GET, and the alert would be lost without a word.
      redirect: "manual",
      signal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return {
      delivered: false,
      status: null,
      retry: true,
      message: unreachable(service, host, error, timeoutMs),
    };
  }
  const { status } = response;
  if (status >= 300 && status < 400) {
    void response.body?.cancel().catch(() => {});
    return {
      delivered: false,
      status,
      retry: false,
      message: `${service} at ${host} answered ${status} redirect; use the final address`,
    };
  }
  let text: string | undefined;
  try {
    text = await readLimited(response, ANSWER_LIMIT_BYTES);
  } catch (error) {
    return { delivered: false, status, retry: true, message: unreachable(service, host, error, timeoutMs) };
  }
  if (text === undefined) {
    return {
      delivered: false,
      status,
      retry: status >= 500,
      message: `${service} at ${host} answered ${status} with more than 64 KiB`,
    };
  }
  const answer = parseJson(text);
  if (status >= 200 && status < 300) {
    const verdict = accepted ? accepted(answer, text) : { delivered: true as const };
    if (verdict.delivered)
      return {
        delivered: true,
        status,
        retry: false,
        message: `${service} accepted the message${verdict.detail ? ` (${verdict.detail})` : ""}`,
      };
    return {
      delivered: false,
      status,
      retry: false,
      message: `${service} answered ${status} but ${verdict.reason}`,
    };
  }
  const said = reasonOf?.(answer) ?? genericReason(answer) ?? (text.trim() || response.statusText);
  const reason = limitLength(cleanUpstreamLabel(said), REASON_LIMIT) || "error";
  const retry = status === 429 || status >= 500;
  const retryAfterMs = retry
    ? (retryAfterFrom(response.headers.get("retry-after"), Date.now()) ??
      (retryAfterOf?.(answer) !== undefined ? retryAfterOf(answer)! * 1000 : undefined))
    : undefined;
  return {
    delivered: false,
    status,
    retry,
    message: `${service} answered ${status} ${reason}`,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterFrom(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d{1,9}$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The host of a URL, for messages: never its path or query, which may hold a token. */
export function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : "an invalid address";
}

export function unreachable(service: string, host: string, error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `${service} did not answer within ${Number((timeoutMs / 1000).toFixed(1))} s`;
  return `${service} at ${host} is unreachable: ${networkFailureReason(error)}`;
}

/** The text without any of the secrets, as they are and as a URL would carry them. */
export function redact(text: string, secrets: readonly (string | undefined | null)[]): string {
  let clean = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret), encodeURI(secret)]))
      clean = clean.replaceAll(form, "[secret]");
  }
  return clean;
}

/** The body as text, or undefined (and the rest abandoned) once it is longer than `maxBytes`. */
export async function readLimited(response: Response, maxBytes: number): Promise<string | undefined> {
  if (!response.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    // Leaving the loop early cancels the body, which closes the connection.
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The usual places an error body names its reason, the most telling first. */
function genericReason(answer: unknown): string | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const record = answer as Record<string, unknown>;
  for (const field of [
    "error_description",
    "errorDescription",
    "description",
    "message",
    "error",
    "detail",
  ]) {
    const value = record[field];
    if (typeof value === "string" && value.trim()) return value;
  }
  return undefined;
}
