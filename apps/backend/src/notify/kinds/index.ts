import { CHANNEL_FIELDS, type ChannelKind } from "@stackgate/contract";
import type { Send } from "./attempt.ts";
import { sendDiscord, sendSlack, sendTeams } from "./chat.ts";
import { defaultSmtpPort, sendEmail } from "./email.ts";
import { sendNtfy } from "./ntfy.ts";
import { GOTIFY_PRIORITY, sendApprise, sendGotify, sendTelegram, TELEGRAM_API } from "./servers.ts";
import { sendWebhook } from "./webhook.ts";

type Fields = Record<string, unknown>;

interface KindDefinition {
  // biome-ignore lint/suspicious/noExplicitAny: each kind's own settings, checked by the contract's schema on the way in
  send: Send<any, any>;
  /** What the stored settings hold beyond what was given: defaults, and what is shown of write-only URLs. */
  complete?: (settings: Fields, secrets: Fields) => Fields;
}

const hostOfSecretUrl = (field: string) => (settings: Fields, secrets: Fields) => ({
  ...settings,
  host: URL.canParse(String(secrets[field])) ? new URL(String(secrets[field])).host : "",
});

const KINDS: Record<ChannelKind, KindDefinition> = {
  ntfy: { send: sendNtfy },
  slack: { send: sendSlack, complete: hostOfSecretUrl("webhookUrl") },
  discord: { send: sendDiscord, complete: hostOfSecretUrl("webhookUrl") },
  teams: { send: sendTeams, complete: hostOfSecretUrl("webhookUrl") },
  telegram: { send: sendTelegram, complete: (settings) => ({ apiUrl: TELEGRAM_API, ...settings }) },
  gotify: { send: sendGotify, complete: (settings) => ({ priority: GOTIFY_PRIORITY, ...settings }) },
  email: {
    send: sendEmail,
    complete: (settings) => ({
      username: null,
      ...settings,
      port: settings.port ?? defaultSmtpPort(settings.security as "starttls" | "tls"),
    }),
  },
  webhook: {
    send: sendWebhook,
    complete: (settings, secrets) => ({
      ...hostOfSecretUrl("url")(settings, secrets),
      headerNames: Object.keys((secrets.headers as Fields | null | undefined) ?? {}),
    }),
  },
  apprise: { send: sendApprise, complete: (settings) => ({ key: null, tags: [], ...settings }) },
};

export const sendFor = (kind: ChannelKind) => KINDS[kind].send;

/** A kind's settings, as given, split into what is stored as it is and the write-only secrets. */
export function splitSettings(kind: ChannelKind, given: Fields): { settings: Fields; secrets: Fields } {
  const secretFields = CHANNEL_FIELDS[kind].secrets;
  const settings: Fields = {};
  const secrets: Fields = {};
  for (const [field, value] of Object.entries(given)) {
    // Null: no value (a secret removed, a setting back to its default).
    if (value === undefined) continue;
    if (secretFields.includes(field)) {
      if (value !== null) secrets[field] = value;
    } else if (value !== null) {
      settings[field] = value;
    }
  }
  return { settings: KINDS[kind].complete?.(settings, secrets) ?? settings, secrets };
}

/** The settings as the API answers them: each secret only as `<field>Set`. */
export function describeSettings(kind: ChannelKind, settings: Fields, secrets: Fields): Fields {
  const described: Fields = { ...settings };
  for (const field of CHANNEL_FIELDS[kind].secrets) described[`${field}Set`] = secrets[field] != null;
  return described;
}
