/**
 * Stand-ins for the services alerts go to, for tests: each is a real HTTP server that takes the
 * service's request, checks it against the service's documented format (every departure is listed in
 * `problems`), and answers as the service does. Answers can be scripted (a 503 with Retry-After, a
 * slow answer) for the next requests.
 */

import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export type ServiceName = "slack" | "discord" | "teams" | "telegram" | "gotify" | "apprise" | "webhook";

export interface Received {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
  at: number;
  /** Where the request departs from the service's documented format; empty when it does not. */
  problems: string[];
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The next requests get these answers, in order; then the service's usual success again. */
  script(...answers: Answer[]): void;
  /** Every request from now on waits this long (0: none). */
  slow(ms: number): void;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** Telegram: the bot token it accepts. Gotify: the application token it accepts. */
  token?: string;
  /** Telegram: the chat it knows. */
  chatId?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";

export async function startReceiver(service: ServiceName, options: ReceiverOptions = {}): Promise<Receiver> {
  const received: Received[] = [];
  const scripted: Answer[] = [];
  let slowMs = 0;
  let messageId = 1000;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const entry: Received = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body,
        json,
        at: Date.now(),
        problems: [],
      };
      received.push(entry);
      const answer = scripted.shift() ?? SERVICES[service](entry, options, ++messageId);
      const wait = answer.delayMs ?? slowMs;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (response.destroyed) return;
      response.writeHead(answer.status, {
        ...(answer.body?.startsWith("{") ? { "content-type": "application/json" } : {}),
        ...answer.headers,
      });
      response.end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    script: (...answers) => void scripted.push(...answers),
    slow: (ms) => {
      slowMs = ms;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (status: number, value: unknown): Answer => ({ status, body: JSON.stringify(value) });

/** Each service: check the request as its documentation describes it, then answer as it does. */
const SERVICES: Record<ServiceName, (request: Received, options: ReceiverOptions, id: number) => Answer> = {
  slack(request) {
    request.problems.push(...checkJsonPost(request), ...checkSlack(request.json));
    // Slack's incoming webhooks answer a plain "ok" (https://api.slack.com/messaging/webhooks#handling_errors).
    return request.problems.length > 0
      ? { status: 400, body: "invalid_blocks" }
      : { status: 200, body: "ok" };
  },
  discord(request, _options, id) {
    request.problems.push(...checkJsonPost(request), ...checkDiscord(request));
    if (request.problems.length > 0) return json(400, { message: "Invalid Form Body", code: 50035 });
    return json(200, {
      id: String(id),
      type: 0,
      channel_id: "1",
      content: "",
      embeds: (request.json as Json).embeds,
    });
  },
  teams(request) {
    request.problems.push(...checkJsonPost(request), ...checkAdaptiveCardMessage(request.json));
    // A workflow's webhook trigger answers 202 Accepted with no body.
    return request.problems.length > 0
      ? json(400, { error: { code: "InvalidRequestContent" } })
      : { status: 202 };
  },
  telegram(request, options, id) {
    const path = new URL(request.url, "http://x").pathname;
    const match = /^\/bot([^/]+)\/sendMessage$/.exec(path);
    if (!match) {
      request.problems.push(`path ${path} is not /bot<token>/sendMessage`);
      return json(404, { ok: false, error_code: 404, description: "Not Found" });
    }
    if (options.token && match[1] !== options.token)
      return json(401, { ok: false, error_code: 401, description: "Unauthorized" });
    request.problems.push(...checkJsonPost(request), ...checkTelegram(request.json));
    if (request.problems.length > 0)
      return json(400, { ok: false, error_code: 400, description: `Bad Request: ${request.problems[0]}` });
    const { chat_id: chatId, text } = request.json as Json;
    if (options.chatId && String(chatId) !== options.chatId)
      return json(400, { ok: false, error_code: 400, description: "Bad Request: chat not found" });
    return json(200, {
      ok: true,
      result: { message_id: id, date: Math.floor(Date.now() / 1000), chat: { id: chatId }, text },
    });
  },
  gotify(request, options, id) {
    if (new URL(request.url, "http://x").pathname !== "/message")
      request.problems.push("path is not /message");
    const token =
      request.headers["x-gotify-key"] ?? new URL(request.url, "http://x").searchParams.get("token");
    if (!token || (options.token && token !== options.token))
      return json(401, {
        error: "Unauthorized",
        errorCode: 401,
        errorDescription: "you need to provide a valid access token or user credentials to access this api",
      });
    request.problems.push(...checkJsonPost(request), ...checkGotify(request.json));
    if (request.problems.length > 0)
      return json(400, { error: "Bad Request", errorCode: 400, errorDescription: request.problems[0] });
    const body = request.json as Json;
    return json(200, {
      id,
      appid: 1,
      message: body.message,
      title: body.title,
      priority: body.priority,
      date: new Date().toISOString(),
    });
  },
  apprise(request) {
    request.problems.push(...checkJsonPost(request), ...checkApprise(request));
    return request.problems.length > 0
      ? { status: 400, body: request.problems[0] }
      : { status: 200, body: "Notification(s) sent." };
  },
  webhook(request) {
    request.problems.push(...checkJsonPost(request));
    return { status: 204 };
  },
};

function checkJsonPost(request: Received): string[] {
  const problems: string[] = [];
  if (request.method !== "POST") problems.push(`method ${request.method} is not POST`);
  if (!String(request.headers["content-type"]).startsWith("application/json"))
    problems.push("content-type is not application/json");
  if (request.json === undefined) problems.push("the body is not JSON");
  return problems;
}

const within = (problems: string[], what: string, value: unknown, max: number, min = 1) => {
  if (!isString(value)) problems.push(`${what} is not a string`);
  else if (value.length < min || value.length > max)
    problems.push(`${what} has ${value.length} characters (${min}-${max})`);
};

const validUrl = (problems: string[], what: string, value: unknown) => {
  if (!isString(value) || !URL.canParse(value)) problems.push(`${what} is not a URL`);
};

/** Slack's Block Kit: https://api.slack.com/reference/block-kit/blocks, formatting: https://api.slack.com/reference/surfaces/formatting */
export function checkSlack(body: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(body)) return ["the message is not an object"];
  within(problems, "text", body.text, 40_000);
  if (!Array.isArray(body.blocks) || body.blocks.length === 0 || body.blocks.length > 50)
    return [...problems, "blocks must be 1-50 blocks"];
  const mrkdwn = (what: string, text: unknown) => {
    // Only &, < and > are control characters in mrkdwn; left raw they break the message.
    if (isString(text) && /<|>|&(?!amp;|lt;|gt;)/.test(text))
      problems.push(`${what} has an unescaped &, < or >`);
  };
  mrkdwn("text", body.text);
  for (const [index, block] of body.blocks.entries()) {
    const at = `blocks[${index}]`;
    if (!isObject(block)) {
      problems.push(`${at} is not an object`);
      continue;
    }
    if (block.type === "header") {
      if (!isObject(block.text) || block.text.type !== "plain_text")
        problems.push(`${at}.text must be plain_text`);
      else within(problems, `${at}.text.text`, block.text.text, 150);
    } else if (block.type === "section") {
      if (block.text === undefined && block.fields === undefined) problems.push(`${at} needs text or fields`);
      if (block.text !== undefined) {
        if (!isObject(block.text) || !["mrkdwn", "plain_text"].includes(String(block.text.type)))
          problems.push(`${at}.text must be a text object`);
        else {
          within(problems, `${at}.text.text`, block.text.text, 3000);
          if (block.text.type === "mrkdwn") mrkdwn(`${at}.text.text`, block.text.text);
        }
      }
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields) || block.fields.length > 10)
          problems.push(`${at}.fields must be at most 10`);
        else
          for (const [position, field] of block.fields.entries()) {
            if (!isObject(field) || !["mrkdwn", "plain_text"].includes(String(field.type)))
              problems.push(`${at}.fields[${position}] must be a text object`);
            else {
              within(problems, `${at}.fields[${position}].text`, field.text, 2000);
              if (field.type === "mrkdwn") mrkdwn(`${at}.fields[${position}].text`, field.text);
            }
          }
      }
    } else if (block.type === "actions") {
      if (!Array.isArray(block.elements) || block.elements.length === 0 || block.elements.length > 25)
        problems.push(`${at}.elements must be 1-25 elements`);
      else
        for (const [position, element] of block.elements.entries()) {
          if (!isObject(element) || element.type !== "button") {
            problems.push(`${at}.elements[${position}] is not a button`);
            continue;
          }
          if (!isObject(element.text) || element.text.type !== "plain_text")
            problems.push(`${at}.elements[${position}].text must be plain_text`);
          else within(problems, `${at}.elements[${position}].text.text`, element.text.text, 75);
          validUrl(problems, `${at}.elements[${position}].url`, element.url);
        }
    } else if (block.type !== "context" && block.type !== "divider") {
      problems.push(`${at}.type ${String(block.type)} is not a block this message should use`);
    }
  }
  return problems;
}

/** Discord: https://discord.com/developers/docs/resources/webhook#execute-webhook, embed limits in resources/message. */
export function checkDiscord(request: Received): string[] {
  const problems: string[] = [];
  const body = request.json;
  if (!isObject(body)) return ["the message is not an object"];
  if (new URL(request.url, "http://x").searchParams.get("wait") !== "true")
    problems.push("wait=true is missing: the answer would not confirm the message");
  if (body.content === undefined && body.embeds === undefined) problems.push("content or embeds is required");
  if (body.username !== undefined) {
    within(problems, "username", body.username, 80);
    if (/discord|clyde/i.test(String(body.username)))
      problems.push("username may not contain discord or clyde");
  }
  if (!isObject(body.allowed_mentions) || !Array.isArray(body.allowed_mentions.parse))
    problems.push("allowed_mentions.parse should be set, so no alert pings anyone");
  if (!Array.isArray(body.embeds) || body.embeds.length > 10)
    return [...problems, "embeds must be at most 10"];
  for (const [index, embed] of body.embeds.entries()) {
    const at = `embeds[${index}]`;
    if (!isObject(embed)) {
      problems.push(`${at} is not an object`);
      continue;
    }
    let total = 0;
    const count = (what: string, value: unknown, max: number) => {
      within(problems, what, value, max);
      if (isString(value)) total += value.length;
    };
    count(`${at}.title`, embed.title, 256);
    if (embed.description !== undefined) count(`${at}.description`, embed.description, 4096);
    if (embed.url !== undefined) validUrl(problems, `${at}.url`, embed.url);
    if (
      embed.color !== undefined &&
      (!Number.isInteger(embed.color) || Number(embed.color) < 0 || Number(embed.color) > 0xffffff)
    )
      problems.push(`${at}.color must be an integer 0-0xFFFFFF`);
    if (embed.timestamp !== undefined && Number.isNaN(Date.parse(String(embed.timestamp))))
      problems.push(`${at}.timestamp is not ISO 8601`);
    if (embed.footer !== undefined)
      count(`${at}.footer.text`, isObject(embed.footer) ? embed.footer.text : undefined, 2048);
    if (embed.fields !== undefined) {
      if (!Array.isArray(embed.fields) || embed.fields.length > 25)
        problems.push(`${at}.fields must be at most 25`);
      else
        for (const [position, field] of embed.fields.entries()) {
          if (!isObject(field)) {
            problems.push(`${at}.fields[${position}] is not an object`);
            continue;
          }
          count(`${at}.fields[${position}].name`, field.name, 256);
          count(`${at}.fields[${position}].value`, field.value, 1024);
          if (field.inline !== undefined && typeof field.inline !== "boolean")
            problems.push(`${at}.fields[${position}].inline is not a boolean`);
        }
    }
    if (total > 6000) problems.push(`${at} holds ${total} characters (at most 6000)`);
  }
  return problems;
}

/**
 * A Teams workflow's "when a Teams webhook request is received" message with one Adaptive Card:
 * https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using,
 * elements as https://adaptivecards.io/explorer/ defines them (Teams renders up to version 1.5).
 */
export function checkAdaptiveCardMessage(body: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(body) || body.type !== "message") return ['type must be "message"'];
  if (!Array.isArray(body.attachments) || body.attachments.length !== 1)
    return ["attachments must hold one card"];
  const [attachment] = body.attachments;
  if (!isObject(attachment) || attachment.contentType !== "application/vnd.microsoft.card.adaptive")
    return ["attachments[0].contentType must be application/vnd.microsoft.card.adaptive"];
  const card = attachment.content;
  if (!isObject(card) || card.type !== "AdaptiveCard")
    return ['attachments[0].content.type must be "AdaptiveCard"'];
  if (!["1.0", "1.1", "1.2", "1.3", "1.4", "1.5"].includes(String(card.version)))
    problems.push(`version ${String(card.version)} is not one Teams renders (1.0-1.5)`);
  if (card.$schema !== "http://adaptivecards.io/schemas/adaptive-card.json")
    problems.push("$schema is not the Adaptive Card schema");
  if (!Array.isArray(card.body) || card.body.length === 0) problems.push("body must hold elements");
  for (const [index, element] of (Array.isArray(card.body) ? card.body : []).entries()) {
    const at = `body[${index}]`;
    if (!isObject(element)) problems.push(`${at} is not an object`);
    else if (element.type === "TextBlock") {
      if (!isString(element.text) || element.text === "") problems.push(`${at}.text is required`);
      if (
        element.color !== undefined &&
        !["Default", "Dark", "Light", "Accent", "Good", "Warning", "Attention"].includes(
          String(element.color),
        )
      )
        problems.push(`${at}.color is not a TextBlock colour`);
      if (
        element.size !== undefined &&
        !["Small", "Default", "Medium", "Large", "ExtraLarge"].includes(String(element.size))
      )
        problems.push(`${at}.size is not a TextBlock size`);
    } else if (element.type === "FactSet") {
      if (!Array.isArray(element.facts)) problems.push(`${at}.facts is required`);
      else
        for (const fact of element.facts)
          if (!isObject(fact) || !isString(fact.title) || !isString(fact.value))
            problems.push(`${at}.facts need title and value strings`);
    } else problems.push(`${at}.type ${String(element.type)} is not an element this card should use`);
  }
  for (const [index, action] of (Array.isArray(card.actions) ? card.actions : []).entries()) {
    if (!isObject(action) || action.type !== "Action.OpenUrl")
      problems.push(`actions[${index}] is not Action.OpenUrl`);
    else {
      within(problems, `actions[${index}].title`, action.title, 200);
      validUrl(problems, `actions[${index}].url`, action.url);
    }
  }
  if (JSON.stringify(body).length > 28_000) problems.push("the message is over Teams' 28 KB");
  return problems;
}

const TELEGRAM_TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "a",
  "code",
  "pre",
  "tg-spoiler",
  "blockquote",
]);

/** Telegram's sendMessage with parse_mode HTML: https://core.telegram.org/bots/api#sendmessage, #html-style. */
export function checkTelegram(body: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(body)) return ["the message is not an object"];
  if (!(isString(body.chat_id) || Number.isInteger(body.chat_id))) problems.push("chat_id is required");
  within(problems, "text", body.text, 4096);
  if (body.parse_mode !== "HTML") problems.push("parse_mode is not HTML");
  if (!isString(body.text)) return problems;
  const open: string[] = [];
  for (const match of body.text.matchAll(/<(\/?)([a-z-]+)([^>]*)>|&([^;\s]*);?|[<>]/g)) {
    if (match[0] === "<" || match[0] === ">") problems.push("text has a raw < or >");
    else if (match[4] !== undefined) {
      if (!/^(lt|gt|amp|quot|#\d+|#x[0-9a-f]+)$/i.test(match[4]) || !match[0].endsWith(";"))
        problems.push(`text has an entity Telegram does not know: ${match[0]}`);
    } else if (!TELEGRAM_TAGS.has(match[2]!))
      problems.push(`text has a tag Telegram does not support: <${match[2]}>`);
    else if (match[1] === "/") {
      if (open.pop() !== match[2]) problems.push(`</${match[2]}> closes nothing open`);
    } else {
      if (match[2] === "a" && !/^\s+href="[^"]+"$/.test(match[3]!))
        problems.push("<a> needs exactly an href");
      open.push(match[2]!);
    }
  }
  if (open.length > 0) problems.push(`text leaves <${open.join(">, <")}> open`);
  return problems;
}

/** Gotify's POST /message: https://gotify.net/api-docs#/message/createMessage, extras: https://gotify.net/docs/msgextras */
export function checkGotify(body: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(body)) return ["the message is not an object"];
  within(problems, "message", body.message, 100_000);
  if (body.title !== undefined && !isString(body.title)) problems.push("title is not a string");
  if (body.priority !== undefined && !Number.isInteger(body.priority))
    problems.push("priority is not an integer");
  if (body.extras !== undefined) {
    if (!isObject(body.extras)) problems.push("extras is not an object");
    else
      for (const key of Object.keys(body.extras))
        if (!/^[a-z]+::[a-z]+$/i.test(key))
          problems.push(`extras key ${key} is not <top-namespace>::<sub-namespace>`);
  }
  return problems;
}

/** Apprise API's /notify: https://github.com/caronc/apprise-api#api-details */
export function checkApprise(request: Received): string[] {
  const problems: string[] = [];
  const body = request.json;
  if (!isObject(body)) return ["the message is not an object"];
  const path = new URL(request.url, "http://x").pathname;
  const stateless = path === "/notify/" || path === "/notify";
  if (!stateless && !/^\/notify\/[A-Za-z0-9_-]{1,128}$/.test(path))
    problems.push(`path ${path} is not /notify/ or /notify/{KEY}`);
  if (stateless && !isString(body.urls)) problems.push("urls is required on /notify/");
  if (!stateless && body.urls !== undefined) problems.push("urls belongs to /notify/ only");
  within(problems, "body", body.body, 100_000);
  if (body.type !== undefined && !["info", "success", "warning", "failure"].includes(String(body.type)))
    problems.push("type must be info, success, warning or failure");
  if (body.format !== undefined && !["text", "markdown", "html"].includes(String(body.format)))
    problems.push("format must be text, markdown or html");
  if (body.tag !== undefined && !isString(body.tag)) problems.push("tag is not a string");
  return problems;
}
