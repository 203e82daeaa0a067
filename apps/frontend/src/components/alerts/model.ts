import "../../lib/zod-without-eval.ts";
import {
  ALERT_EVENTS,
  type AlertEventName,
  CHANNEL_FIELDS,
  CHANNEL_KINDS,
  type ChannelKind,
} from "@stackgate/contract/alert-channels.ts";
import type { ApiClient } from "../../lib/api.ts";
import type { PlainMessageKey } from "../../lib/i18n.ts";

export { ALERT_EVENTS, type AlertEventName, CHANNEL_FIELDS, CHANNEL_KINDS, type ChannelKind };

export type Channel = Awaited<ReturnType<ApiClient["notify"]["channels"]["list"]>>["channels"][number];
export type Delivery = Awaited<
  ReturnType<ApiClient["notify"]["channels"]["deliveries"]>
>["deliveries"][number];
export type TestAnswer = Awaited<ReturnType<ApiClient["notify"]["channels"]["test"]>>;
export type Severity = Channel["vulnerabilitySeverity"];
export const SEVERITIES: Severity[] = ["critical", "high", "medium", "low"];

/**
 * How the form asks for one setting: `text` on one line, `lines` in a text area, `list` as a comma
 * list (sent as an array), `headers` as `Name: value` lines (sent as an object), `number`, `choice`.
 */
export interface FieldSpec {
  name: string;
  input: "url" | "text" | "email" | "number" | "choice" | "list" | "lines" | "headers";
  label: PlainMessageKey;
  hint: PlainMessageKey;
  required?: boolean;
  placeholder?: string;
  /** For `choice`: each value and its label. */
  choices?: { value: string; label: PlainMessageKey }[];
  /** A button that fills in a value (the webhook's signing secret). */
  generate?: () => string;
}

const webhookUrl = (kind: "slack" | "discord" | "teams"): FieldSpec => ({
  name: "webhookUrl",
  input: "url",
  label: kind === "teams" ? "alerts.field.workflowUrl" : "alerts.field.webhookUrl",
  hint: `alerts.hint.${kind}.webhookUrl`,
  required: true,
});

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** Each kind's settings, in the order the form shows them. */
export const KIND_FIELDS: Record<ChannelKind, FieldSpec[]> = {
  ntfy: [
    {
      name: "url",
      input: "url",
      label: "alerts.field.ntfyUrl",
      hint: "alerts.hint.ntfy.url",
      required: true,
      placeholder: "https://ntfy.sh",
    },
    {
      name: "topic",
      input: "text",
      label: "alerts.field.topic",
      hint: "alerts.hint.ntfy.topic",
      required: true,
    },
    { name: "token", input: "text", label: "alerts.field.accessToken", hint: "alerts.hint.ntfy.token" },
  ],
  slack: [webhookUrl("slack")],
  discord: [webhookUrl("discord")],
  teams: [webhookUrl("teams")],
  telegram: [
    {
      name: "botToken",
      input: "text",
      label: "alerts.field.botToken",
      hint: "alerts.hint.telegram.botToken",
      required: true,
    },
    {
      name: "chatId",
      input: "text",
      label: "alerts.field.chatId",
      hint: "alerts.hint.telegram.chatId",
      required: true,
    },
    {
      name: "apiUrl",
      input: "url",
      label: "alerts.field.apiUrl",
      hint: "alerts.hint.telegram.apiUrl",
      placeholder: "https://api.telegram.org",
    },
  ],
  gotify: [
    {
      name: "url",
      input: "url",
      label: "alerts.field.gotifyUrl",
      hint: "alerts.hint.gotify.url",
      required: true,
      placeholder: "http://gotify.lan",
    },
    {
      name: "token",
      input: "text",
      label: "alerts.field.appToken",
      hint: "alerts.hint.gotify.token",
      required: true,
    },
    {
      name: "priority",
      input: "number",
      label: "alerts.field.priority",
      hint: "alerts.hint.gotify.priority",
      placeholder: "8",
    },
  ],
  email: [
    {
      name: "host",
      input: "text",
      label: "alerts.field.smtpHost",
      hint: "alerts.hint.email.host",
      required: true,
      placeholder: "smtp.example.com",
    },
    {
      name: "security",
      input: "choice",
      label: "alerts.field.security",
      hint: "alerts.hint.email.security",
      required: true,
      choices: [
        { value: "starttls", label: "alerts.security.starttls" },
        { value: "tls", label: "alerts.security.tls" },
      ],
    },
    { name: "port", input: "number", label: "alerts.field.port", hint: "alerts.hint.email.port" },
    { name: "username", input: "text", label: "alerts.field.username", hint: "alerts.hint.email.username" },
    { name: "password", input: "text", label: "alerts.field.password", hint: "alerts.hint.email.password" },
    {
      name: "from",
      input: "email",
      label: "alerts.field.from",
      hint: "alerts.hint.email.from",
      required: true,
    },
    { name: "to", input: "list", label: "alerts.field.to", hint: "alerts.hint.email.to", required: true },
  ],
  webhook: [
    { name: "url", input: "url", label: "alerts.field.url", hint: "alerts.hint.webhook.url", required: true },
    {
      name: "secret",
      input: "text",
      label: "alerts.field.signingSecret",
      hint: "alerts.hint.webhook.secret",
      required: true,
      generate: newWebhookSecret,
    },
    { name: "headers", input: "headers", label: "alerts.field.headers", hint: "alerts.hint.webhook.headers" },
  ],
  apprise: [
    {
      name: "url",
      input: "url",
      label: "alerts.field.appriseUrl",
      hint: "alerts.hint.apprise.url",
      required: true,
      placeholder: "http://apprise:8000",
    },
    { name: "key", input: "text", label: "alerts.field.configKey", hint: "alerts.hint.apprise.key" },
    { name: "tags", input: "list", label: "alerts.field.tags", hint: "alerts.hint.apprise.tags" },
    { name: "urls", input: "lines", label: "alerts.field.appriseUrls", hint: "alerts.hint.apprise.urls" },
  ],
};

/**
 * Whether the server holds a secret: the API answers `<field>Set`, or for a webhook's headers their
 * names (the values are write-only).
 */
export function secretSaved(saved: Record<string, unknown>, field: string): boolean {
  if (field === "headers" && Array.isArray(saved.headerNames)) return saved.headerNames.length > 0;
  return saved[`${field}Set`] === true;
}

export const isSecret = (kind: ChannelKind, field: string) => CHANNEL_FIELDS[kind].secrets.includes(field);
export const isAddress = (kind: ChannelKind, field: string) => CHANNEL_FIELDS[kind].address.includes(field);

/**
 * Whether an address's new text takes the channel somewhere else, as the API judges it: a URL by its
 * origin (another path on the same server is not a move), anything else (an SMTP host, a port) exactly.
 */
export function addressMoved(before: string, after: string): boolean {
  if (before === after) return false;
  return !(URL.canParse(before) && URL.canParse(after) && new URL(before).origin === new URL(after).origin);
}

/** A saved setting as the form edits it: a list joined by commas. */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}

/** What the form's text means as the API takes it; undefined for an empty optional field. */
export function fromText(spec: FieldSpec, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  switch (spec.input) {
    case "number":
      return Number(trimmed);
    case "list":
      return trimmed
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);
    case "lines":
      // The API takes them on one line: each line's URLs, separated by spaces.
      return trimmed.split(/\s*\n\s*/).join(" ");
    case "headers":
      return Object.fromEntries(
        trimmed
          .split(/\r?\n/)
          .filter((line) => line.trim())
          .map((line) => {
            const colon = line.indexOf(":");
            return colon < 0
              ? [line.trim(), ""]
              : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
          }),
      );
    default:
      return trimmed;
  }
}

export const eventLabel = (event: AlertEventName | "test"): PlainMessageKey => `alerts.event.${event}`;
