import type { AlertMessage } from "../message.ts";
import { publishToNtfy } from "../ntfy-publisher.ts";
import type { Attempt, Send } from "./attempt.ts";

/**
 * ntfy as it always was on the wire (ntfy-publisher.ts): the JSON publish, the token as a Bearer,
 * the same title, priority, tags and click.
 */
export const sendNtfy: Send<{ url: string; topic: string }, { token?: string | null }> = async (
  { settings, secrets },
  message: AlertMessage,
  { timeoutMs, signal },
): Promise<Attempt> => {
  const result = await publishToNtfy(
    { url: settings.url, topic: settings.topic, token: secrets.token ?? undefined },
    {
      title: message.title,
      message: [
        message.lines.join("\n"),
        message.facts.map(({ label, value }) => `${label}: ${value}`).join("\n"),
      ]
        .filter(Boolean)
        .join("\n\n"),
      priority: message.urgency,
      tags: [message.badge, ...message.labels],
      click: message.link.url,
    },
    { timeoutMs, signal },
  );
  if (result.ok)
    return {
      delivered: true,
      status: result.status,
      retry: false,
      message: `ntfy accepted the message${result.id ? ` (id ${result.id})` : ""}`,
    };
  const status = result.status ?? null;
  return {
    delivered: false,
    status,
    retry: result.unreachable === true || status === 429 || (status !== null && status >= 500),
    message: result.error,
    ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
  };
};
