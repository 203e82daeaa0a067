/**
 * Publishes one message to an ntfy server with the JSON form (POST to the server
 * root; it carries Unicode titles that headers cannot). Never throws and never
 * waits longer than the time limit; failures come back as a sentence a person can
 * act on, which never contains the token.
 * Facts: shared/integrations/trivy-ntfy.md §2.
 *
 * The server's answer is untrusted: at most 64 KiB of it is read, and what it says is cleaned
 * before it is shown (see upstream/text.ts).
 */

import { networkErrorCode, networkFailureReason, parseBaseUrl } from "../platform/network.ts";
import { cleanUpstreamLabel, limitLength } from "../upstream/text.ts";
import { readLimited, retryAfterFrom } from "./kinds/attempt.ts";

export interface NtfyTarget {
  /** Server base URL, e.g. https://ntfy.example.com (a trailing slash is fine). */
  url: string;
  topic: string;
  /** Access token (tk_…), sent as a Bearer token. */
  token?: string;
}

export interface NtfyAlert {
  title: string;
  message: string;
  priority?: 1 | 2 | 3 | 4 | 5;
  /** Emoji short codes such as "warning" show as emoji. */
  tags?: string[];
  click?: string;
}

export type NtfyPublishResult =
  | { ok: true; status: number; id?: string }
  | {
      ok: false;
      status?: number;
      error: string;
      /** No answer came: the server could not be reached, or did not answer in time. */
      unreachable?: boolean;
      /** The wait a 429 or 503 asked for (Retry-After). */
      retryAfterMs?: number;
    };

/** ntfy turns a longer message into an attachment, which most servers refuse. */
export const NTFY_MESSAGE_LIMIT_BYTES = 4096;
// ntfy reads a JSON publish only up to twice the message limit.
const JSON_BODY_LIMIT_BYTES = 2 * NTFY_MESSAGE_LIMIT_BYTES;
const TITLE_LIMIT_BYTES = 250;
/** ntfy answers a publish with one message of a few hundred bytes. */
const ANSWER_LIMIT_BYTES = 64 * 1024;
const REASON_LIMIT = 200;
const ELLIPSIS = "…";

export async function publishToNtfy(
  target: NtfyTarget,
  message: NtfyAlert,
  { timeoutMs = 5000, signal }: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<NtfyPublishResult> {
  const token = target.token || undefined;
  let result: NtfyPublishResult;
  try {
    result = await publish(target, token, message, timeoutMs, signal);
  } catch (error) {
    result = {
      ok: false,
      error: `publishing to ntfy failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  // Belt and braces: whatever a lower layer put into a message, the token does not leave here.
  if (!result.ok && token) result.error = result.error.replaceAll(token, "[token]");
  return result;
}

async function publish(
  target: NtfyTarget,
  token: string | undefined,
  alert: NtfyAlert,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<NtfyPublishResult> {
  const parsed = parseServerUrl(target.url);
  if (!parsed.ok) return parsed;
  const server = parsed.base;
  if (token !== undefined && !/^[\x21-\x7e]+$/.test(token)) {
    return { ok: false, error: "the ntfy token contains characters that cannot be sent in a header" };
  }

  try {
    const response = await fetch(`${server}/`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...(token !== undefined ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: jsonBody(target.topic, alert),
      // A redirected POST comes back as a GET, and the publish would be lost without a word.
      redirect: "manual",
      signal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs),
    });
    return await readAnswer(response, server);
  } catch (error) {
    return { ok: false, unreachable: true, error: describeFetchError(error, server, timeoutMs) };
  }
}

/** The server URL without trailing slash, or why it cannot be used. */
function parseServerUrl(url: string): { ok: true; base: string } | { ok: false; error: string } {
  if (URL.canParse(url) && (new URL(url).username || new URL(url).password)) {
    return { ok: false, error: "the ntfy server URL must not contain a user name or password; use a token" };
  }
  return parseBaseUrl(url, "the ntfy server URL");
}

/** Keeps the message within ntfy's limits: at most 4096 bytes, and the whole JSON within 8192 bytes. */
function jsonBody(topic: string, alert: NtfyAlert): string {
  const fixed = {
    topic,
    title: truncateUtf8(alert.title, TITLE_LIMIT_BYTES),
    ...(alert.priority !== undefined ? { priority: alert.priority } : {}),
    ...(alert.tags && alert.tags.length > 0 ? { tags: alert.tags } : {}),
    ...(alert.click ? { click: alert.click } : {}),
  };
  const render = (messageBytes: number) =>
    JSON.stringify({ ...fixed, message: truncateUtf8(alert.message, messageBytes) });
  const fits = (messageBytes: number) => Buffer.byteLength(render(messageBytes)) <= JSON_BODY_LIMIT_BYTES;
  if (fits(NTFY_MESSAGE_LIMIT_BYTES)) return render(NTFY_MESSAGE_LIMIT_BYTES);
  // JSON escapes (quotes, newlines, control characters) can make the body far larger
  // than the message: search the longest message that still fits.
  let fitting = 0;
  let tooLong = NTFY_MESSAGE_LIMIT_BYTES;
  while (tooLong - fitting > 1) {
    const middle = Math.floor((fitting + tooLong) / 2);
    if (fits(middle)) fitting = middle;
    else tooLong = middle;
  }
  return render(fitting);
}

/** Cuts text to at most maxBytes of UTF-8, on a character boundary, marking the cut with "…". */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  const ellipsisBytes = Buffer.byteLength(ELLIPSIS);
  if (maxBytes < ellipsisBytes) return "";
  let end = maxBytes - ellipsisBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1;
  return `${bytes.subarray(0, end).toString("utf8")}${ELLIPSIS}`;
}

async function readAnswer(response: Response, server: string): Promise<NtfyPublishResult> {
  const status = response.status;
  if (status >= 300 && status < 400) {
    const header = response.headers.get("location");
    const location = header === null ? null : cleanUpstreamLabel(header);
    const target =
      location && URL.canParse(location, `${server}/`) ? new URL(location, `${server}/`).href : location;
    const where = target ? ` to ${target}` : "";
    return {
      ok: false,
      status,
      error: `ntfy answered ${status} redirect${where}; use the final address as the server URL`,
    };
  }
  const text = await readLimited(response, ANSWER_LIMIT_BYTES);
  if (text === undefined) {
    return {
      ok: false,
      status,
      error: `the server at ${server} answered ${status} with more than 64 KiB, which is not like ntfy`,
    };
  }
  const json = parseJsonObject(text);
  if (status >= 200 && status < 300) {
    if (typeof json?.id === "string") return { ok: true, status, id: json.id };
    return {
      ok: false,
      status,
      error: `the server at ${server} answered ${status} but not like ntfy (no message id)`,
    };
  }
  const said = typeof json?.error === "string" ? json.error : response.statusText.toLowerCase();
  const reason = limitLength(cleanUpstreamLabel(said), REASON_LIMIT) || "error";
  const retryAfterMs = retryAfterFrom(response.headers.get("retry-after"), Date.now());
  return {
    ok: false,
    status,
    error: `ntfy answered ${status} ${reason}`,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function describeFetchError(error: unknown, server: string, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `ntfy did not answer within ${Number((timeoutMs / 1000).toFixed(1))} s`;
  }
  if (networkErrorCode(error)) return `ntfy at ${server} is unreachable: ${networkFailureReason(error)}`;
  const cause = error instanceof Error ? (error.cause as { message?: string } | undefined) : undefined;
  const detail = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return `ntfy at ${server} is unreachable: ${limitLength(cleanUpstreamLabel(detail), REASON_LIMIT)}`;
}
