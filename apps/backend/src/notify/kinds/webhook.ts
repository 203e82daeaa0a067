import { createHmac } from "node:crypto";
import { plainText } from "../message.ts";
import { postJson, type Send } from "./attempt.ts";

/**
 * A JSON POST signed as the Standard Webhooks specification says
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
 * `webhook-id` names the alert and stays the same on every retry, so a receiver can drop a repeat;
 * `webhook-timestamp` is the attempt's time in seconds; `webhook-signature` is `v1,` and the
 * base64 HMAC-SHA256 of `id.timestamp.body` under the secret's bytes.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

export const sendWebhook: Send<
  unknown,
  { url: string; secret: string; headers?: Record<string, string> | null }
> = ({ secrets }, message, context) => {
  const id = `msg_${context.deliveryId}`;
  const timestamp = Math.floor(context.now() / 1000);
  const body = JSON.stringify({
    type: message.event,
    timestamp: new Date(context.now()).toISOString(),
    data: {
      ...message.data,
      title: message.title,
      text: plainText(message),
      url: message.link.url,
    },
  });
  const custom = secrets.headers ?? {};
  return postJson(
    {
      service: "The webhook",
      url: secrets.url,
      secrets: [secrets.url, secrets.secret, ...Object.values(custom)],
      body,
      headers: {
        ...custom,
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signWebhook(secrets.secret, id, timestamp, body),
      },
    },
    context,
  );
};
