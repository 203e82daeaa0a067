/**
 * Services Stackgate reaches by their server's URL: Telegram's Bot API, Gotify and Apprise API
 * (usually on the same network), each in its documented request.
 */

import type { AlertMessage } from "../message.ts";
import { plainText } from "../message.ts";
import { postJson, type Send } from "./attempt.ts";
import { cut } from "./chat.ts";

const baseOf = (url: string) => url.replace(/\/+$/, "");

// Telegram: https://core.telegram.org/bots/api#sendmessage, https://core.telegram.org/bots/api#formatting-options

export const TELEGRAM_API = "https://api.telegram.org";
const TELEGRAM_TEXT_LIMIT = 4096;

const htmlEscape = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

export function telegramText(message: AlertMessage): string {
  const link = `<a href="${htmlEscape(message.link.url)}">${htmlEscape(message.link.label)}</a>`;
  const facts = message.facts.map(({ label, value }) => `<b>${htmlEscape(label)}:</b> ${htmlEscape(value)}`);
  const head = `<b>${htmlEscape(message.title)}</b>\n\n`;
  const tail = `${facts.length > 0 ? `\n\n${facts.join("\n")}` : ""}\n\n${link}`;
  // The body is what gives way to the limit; cutting it never splits an entity or a tag.
  const room = TELEGRAM_TEXT_LIMIT - head.length - tail.length;
  const body = message.lines.join("\n");
  let escaped = htmlEscape(body);
  if (escaped.length > room) escaped = htmlEscape(cut(body, Math.max(1, Math.floor(room / 6))));
  return `${head}${escaped}${tail}`;
}

type TelegramAnswer = {
  ok?: boolean;
  description?: string;
  result?: { message_id?: number };
  parameters?: { retry_after?: number };
};
const telegramAnswer = (answer: unknown): TelegramAnswer =>
  typeof answer === "object" && answer !== null ? (answer as TelegramAnswer) : {};

export const sendTelegram: Send<{ apiUrl: string; chatId: string }, { botToken: string }> = (
  { settings, secrets },
  message,
  context,
) =>
  postJson(
    {
      service: "Telegram",
      url: `${baseOf(settings.apiUrl)}/bot${secrets.botToken}/sendMessage`,
      secrets: [secrets.botToken],
      body: {
        chat_id: settings.chatId,
        text: telegramText(message),
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
      },
      accepted: (answer) => {
        const read = telegramAnswer(answer);
        return read.ok === true
          ? {
              delivered: true,
              detail: read.result?.message_id !== undefined ? `message ${read.result.message_id}` : undefined,
            }
          : { delivered: false, reason: "not like the Bot API (no ok: true)" };
      },
      reasonOf: (answer) => telegramAnswer(answer).description,
      retryAfterOf: (answer) => telegramAnswer(answer).parameters?.retry_after,
    },
    context,
  );

// Gotify: https://gotify.net/api-docs#/message/createMessage, https://gotify.net/docs/msgextras

export const GOTIFY_PRIORITY = 8;

export const sendGotify: Send<{ url: string; priority: number }, { token: string }> = (
  { settings, secrets },
  message,
  context,
) =>
  postJson(
    {
      service: "Gotify",
      url: `${baseOf(settings.url)}/message`,
      headers: { "x-gotify-key": secrets.token },
      secrets: [secrets.token],
      body: {
        title: message.title,
        message: plainText(message),
        priority: settings.priority,
        extras: {
          "client::display": { contentType: "text/plain" },
          "client::notification": { click: { url: message.link.url } },
        },
      },
      accepted: (answer) =>
        typeof (answer as { id?: unknown } | undefined)?.id === "number"
          ? { delivered: true, detail: `message ${(answer as { id: number }).id}` }
          : { delivered: false, reason: "not like Gotify (no message id)" },
    },
    context,
  );

// Apprise API: https://github.com/caronc/apprise-api#api-details

const APPRISE_TYPES: Record<AlertMessage["tone"], string> = {
  danger: "failure",
  warning: "warning",
  success: "success",
  info: "info",
};

export const sendApprise: Send<
  { url: string; key: string | null; tags: string[] },
  { urls?: string | null }
> = ({ settings, secrets }, message, context) => {
  const common = {
    title: message.title,
    body: plainText(message),
    type: APPRISE_TYPES[message.tone],
    format: "text",
  };
  const stateful = settings.key !== null;
  return postJson(
    {
      service: "Apprise",
      url: stateful
        ? `${baseOf(settings.url)}/notify/${encodeURIComponent(settings.key!)}`
        : `${baseOf(settings.url)}/notify/`,
      secrets: [secrets.urls],
      body: stateful
        ? { ...common, ...(settings.tags.length > 0 ? { tag: settings.tags.join(",") } : {}) }
        : { ...common, urls: secrets.urls },
    },
    context,
  );
};
