import { z } from "zod";
import { stackPattern } from "./apikeys.ts";
import { displayName, isoDate, sessionOnly } from "./common.ts";
import { httpUrl } from "./connection.ts";
import { ntfyTopic, vulnerabilitySeverity } from "./notify.ts";

const tags = ["Alert channels"];

export const ALERT_EVENTS = [
  "deploy.failed",
  "deploy.succeeded",
  "deploy.unstable",
  "vulnerability.new",
  "update.available",
] as const;
export type AlertEventName = (typeof ALERT_EVENTS)[number];

export const CHANNEL_KINDS = [
  "ntfy",
  "slack",
  "discord",
  "teams",
  "telegram",
  "gotify",
  "email",
  "webhook",
  "apprise",
] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export const ALERT_LANGUAGES = ["en", "es"] as const;

/**
 * Per kind, its write-only settings (never answered; stored encrypted) and its address: when an
 * address field changes, every secret must be given again, so a secret never follows a moved address.
 */
export const CHANNEL_FIELDS: Record<ChannelKind, { secrets: readonly string[]; address: readonly string[] }> =
  {
    ntfy: { secrets: ["token"], address: ["url"] },
    slack: { secrets: ["webhookUrl"], address: ["webhookUrl"] },
    discord: { secrets: ["webhookUrl"], address: ["webhookUrl"] },
    teams: { secrets: ["webhookUrl"], address: ["webhookUrl"] },
    telegram: { secrets: ["botToken"], address: ["apiUrl"] },
    gotify: { secrets: ["token"], address: ["url"] },
    email: { secrets: ["password"], address: ["host", "port"] },
    webhook: { secrets: ["url", "secret", "headers"], address: ["url"] },
    apprise: { secrets: ["urls"], address: ["url"] },
  };

export const alertEventName = z
  .enum(ALERT_EVENTS, { error: `events may list only ${ALERT_EVENTS.join(", ")}` })
  .meta({
    description:
      "`deploy.failed`, `deploy.succeeded`, `deploy.unstable` (a deployed stack that did not settle), " +
      "`vulnerability.new` (a scan found vulnerabilities the image's previous scan did not have), " +
      "`update.available` (Komodo newly reports a newer image for a stack's service)",
  });
export const channelKind = z.enum(CHANNEL_KINDS, {
  error: `kind must be one of ${CHANNEL_KINDS.join(", ")}`,
});
export const alertLanguage = z.enum(ALERT_LANGUAGES, { error: "language must be en or es" });

/** An address Stackgate calls: http(s), without `user:password@` (credentials go in a secret field). */
const address = (field: string) =>
  httpUrl(field).refine((url) => {
    const parsed = new URL(url);
    return parsed.username === "" && parsed.password === "";
  }, `${field} must not contain a user name or password`);

const printable = (field: string, max: number) =>
  z
    .string()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`)
    .regex(/^[\x21-\x7e]+$/, `${field} must be printable characters without spaces`);

/** Standard Webhooks: `whsec_` and the base64 of 24 to 64 random bytes. */
const webhookSecret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, "secret must be whsec_ followed by base64")
  .refine((secret) => {
    const bytes = base64Length(secret.slice("whsec_".length));
    return bytes >= 24 && bytes <= 64;
  }, "secret must hold 24 to 64 bytes (whsec_ and their base64)")
  .meta({ description: "Write-only. The signing secret, as the Standard Webhooks specification writes it" });

function base64Length(text: string): number {
  try {
    return atob(text).length;
  } catch {
    return 0;
  }
}

/** Headers Stackgate writes itself, or that would change how the request is read. */
const RESERVED_HEADERS = [
  "content-type",
  "content-length",
  "host",
  "transfer-encoding",
  "connection",
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
];
const webhookHeaders = z
  .record(
    z.string(),
    z
      .string()
      .max(1024, "headers: a value must be at most 1024 characters")
      .regex(/^[\x20-\x7e]*$/, "headers: a value must be printable ASCII on one line"),
  )
  .superRefine((headers, context) => {
    const names = Object.keys(headers);
    if (names.length > 20)
      context.addIssue({ code: "custom", message: "headers may hold at most 20 headers" });
    for (const name of names) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(name))
        context.addIssue({
          code: "custom",
          path: [name],
          message: "headers: a header name must be 1-64 token characters",
        });
      else if (RESERVED_HEADERS.includes(name.toLowerCase()))
        context.addIssue({
          code: "custom",
          path: [name],
          message:
            "headers: a header name must not be one Stackgate sets (content-type, webhook-id, webhook-signature…)",
        });
    }
  })
  .meta({
    description:
      "Write-only (they often carry a token). Sent with every delivery; the answer lists their names only",
  });

const emailAddress = z.email({ error: "must be an email address" }).max(254);

/** Each kind's settings as they are saved, secrets included. */
export const channelSettingsInput = {
  ntfy: z.strictObject({
    url: address("url").meta({ example: "https://ntfy.example.com" }),
    topic: ntfyTopic,
    token: printable("token", 512)
      .nullable()
      .optional()
      .meta({ description: "Write-only. An ntfy access token (tk_…), for topics that need one" }),
  }),
  slack: z.strictObject({
    webhookUrl: address("webhookUrl").meta({
      description:
        "Write-only. The incoming webhook's URL (Slack: app › Incoming Webhooks; Mattermost and Rocket.Chat " +
        "take the same messages)",
    }),
  }),
  discord: z.strictObject({
    webhookUrl: address("webhookUrl").meta({
      description: "Write-only. The channel's webhook URL (channel settings › Integrations › Webhooks)",
    }),
  }),
  teams: z.strictObject({
    webhookUrl: address("webhookUrl").meta({
      description:
        "Write-only. The URL of a Teams workflow that posts to a channel when a webhook request is " +
        "received (Workflows › “Post to a channel when a webhook request is received”)",
    }),
  }),
  telegram: z.strictObject({
    apiUrl: address("apiUrl").optional().meta({
      description: "The Bot API server (default https://api.telegram.org)",
      example: "https://api.telegram.org",
    }),
    botToken: z
      .string()
      .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, "botToken must look like 123456789:AA… (from @BotFather)")
      .meta({ description: "Write-only. The bot's token, from @BotFather" }),
    chatId: z
      .string()
      .regex(
        /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/,
        "chatId must be a number (groups are negative) or a public channel's @name",
      )
      .meta({ example: "-1001234567890" }),
  }),
  gotify: z.strictObject({
    url: address("url").meta({ example: "http://gotify.lan" }),
    token: printable("token", 128).meta({
      description: "Write-only. An application's token (Apps › Create)",
    }),
    priority: z
      .number({ error: "priority must be a whole number from 0 to 10" })
      .int("priority must be a whole number from 0 to 10")
      .min(0, "priority must be a whole number from 0 to 10")
      .max(10, "priority must be a whole number from 0 to 10")
      .nullable()
      .optional()
      .meta({ description: "Gotify's priority for every message (default 8, which notifies on phones)" }),
  }),
  email: z.strictObject({
    host: z
      .string()
      .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/, "host must be a host name or IPv4 address")
      .meta({ example: "smtp.example.com" }),
    port: z
      .number({ error: "port must be a whole number from 1 to 65535" })
      .int("port must be a whole number from 1 to 65535")
      .min(1, "port must be a whole number from 1 to 65535")
      .max(65535, "port must be a whole number from 1 to 65535")
      .nullable()
      .optional()
      .meta({ description: "Default 587 with STARTTLS, 465 with TLS" }),
    security: z.enum(["starttls", "tls"], { error: "security must be starttls or tls" }).meta({
      description:
        "`starttls`: a plain connection that must turn to TLS before anything is sent (usually port 587); " +
        "`tls`: TLS from the first byte (usually 465)",
    }),
    username: z.string().min(1, "username must not be empty").max(256).nullable().optional(),
    password: z
      .string()
      .min(1, "password must not be empty")
      .max(512)
      .nullable()
      .optional()
      .meta({ description: "Write-only. With username: sign in to the server" }),
    from: emailAddress.meta({ example: "stackgate@example.com" }),
    to: z
      .array(emailAddress)
      .min(1, "to must list at least one address")
      .max(20, "to may list at most 20 addresses"),
  }),
  webhook: z.strictObject({
    url: address("url").meta({
      description: "Write-only (such URLs often hold a token). Receives a JSON POST",
    }),
    secret: webhookSecret,
    headers: webhookHeaders.nullable().optional(),
  }),
  apprise: z.strictObject({
    url: address("url").meta({ description: "The Apprise API server", example: "http://apprise:8000" }),
    key: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,128}$/, "key must be 1-128 letters, digits, '-' or '_'")
      .nullable()
      .optional()
      .meta({ description: "A configuration saved in Apprise API under this key; or give `urls`" }),
    tags: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z0-9_. -]{1,128}$/, "tags: a tag must be 1-128 letters, digits, '-', '_', '.'"),
      )
      .max(20, "tags may list at most 20 tags")
      .nullable()
      .optional()
      .meta({ description: "With `key`: the configuration's tags to notify (Apprise's `tag`)" }),
    urls: z
      .string()
      .min(1, "urls must not be empty")
      .max(4096, "urls must be at most 4096 characters")
      .regex(/^[^\p{Cc}]+$/u, "urls must be on one line")
      .nullable()
      .optional()
      .meta({
        description:
          "Write-only. Apprise URLs, separated by spaces or commas (e.g. tgram://…); or give `key`",
      }),
  }),
} satisfies Record<ChannelKind, z.ZodObject>;

const secretSet = (what: string) =>
  z.boolean().meta({ description: `Whether ${what} is saved; it is never answered` });
const hostOf = z.string().meta({ description: "The host of the write-only URL, to tell channels apart" });

/** Each kind's settings as they are answered: each secret only as whether it is set. */
export const channelSettingsOutput = {
  ntfy: z.object({ url: z.string(), topic: z.string(), tokenSet: secretSet("a token") }),
  slack: z.object({ host: hostOf, webhookUrlSet: secretSet("the webhook URL") }),
  discord: z.object({ host: hostOf, webhookUrlSet: secretSet("the webhook URL") }),
  teams: z.object({ host: hostOf, webhookUrlSet: secretSet("the workflow URL") }),
  telegram: z.object({ apiUrl: z.string(), chatId: z.string(), botTokenSet: secretSet("the bot token") }),
  gotify: z.object({ url: z.string(), priority: z.number().int(), tokenSet: secretSet("the token") }),
  email: z.object({
    host: z.string(),
    port: z.number().int(),
    security: z.enum(["starttls", "tls"]),
    username: z.string().nullable(),
    from: z.string(),
    to: z.array(z.string()),
    passwordSet: secretSet("a password"),
  }),
  webhook: z.object({
    host: hostOf,
    urlSet: secretSet("the URL"),
    secretSet: secretSet("the signing secret"),
    headerNames: z.array(z.string()),
  }),
  apprise: z.object({
    url: z.string(),
    key: z.string().nullable(),
    tags: z.array(z.string()),
    urlsSet: secretSet("Apprise URLs"),
  }),
} satisfies Record<ChannelKind, z.ZodObject>;

export type ChannelSettingsInput<K extends ChannelKind = ChannelKind> = z.infer<
  (typeof channelSettingsInput)[K]
>;
export type ChannelSettingsOutput<K extends ChannelKind = ChannelKind> = z.infer<
  (typeof channelSettingsOutput)[K]
>;

const channelName = displayName("name", 64).meta({ example: "On-call Slack" });
const events = z
  .array(alertEventName)
  .min(1, "events must name at least one event")
  .refine((list) => new Set(list).size === list.length, "events must not repeat an event");
const stacks = z
  .array(stackPattern)
  .min(1, "stacks must hold at least one name or pattern (`*`: every stack)")
  .max(50, "stacks may list at most 50 names or patterns")
  .meta({
    description:
      "The stacks whose alerts the channel receives: names or patterns (`*` any characters, `?` one)",
    example: ["*"],
  });

const channelChoices = {
  name: channelName,
  enabled: z.boolean().optional().meta({ description: "Whether the channel receives alerts (default true)" }),
  events,
  stacks: stacks.optional().meta({ description: 'Default `["*"]`: every stack' }),
  language: alertLanguage.optional().meta({ description: "The alerts' language (default en)" }),
  vulnerabilitySeverity: vulnerabilitySeverity.optional(),
  alertOnFirstScan: z.boolean().optional().meta({
    description: "`vulnerability.new` on an image's first scan too (default false: it sets the baseline)",
  }),
};

export const createChannelInput = z.discriminatedUnion(
  "kind",
  CHANNEL_KINDS.map((kind) =>
    z.strictObject({ ...channelChoices, kind: z.literal(kind), settings: channelSettingsInput[kind] }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  { error: `kind must be one of ${CHANNEL_KINDS.join(", ")}` },
) as unknown as z.ZodType<ChannelInput, ChannelInput>;

/** A new channel as `POST /api/v0/notify/channels` takes it: common choices, and the settings of its kind. */
export type ChannelInput = {
  [K in ChannelKind]: {
    name: string;
    enabled?: boolean;
    events: AlertEventName[];
    stacks?: string[];
    language?: (typeof ALERT_LANGUAGES)[number];
    vulnerabilitySeverity?: z.infer<typeof vulnerabilitySeverity>;
    alertOnFirstScan?: boolean;
    kind: K;
    settings: z.input<(typeof channelSettingsInput)[K]>;
  };
}[ChannelKind];

const channelId = z.string().min(1, "id must not be empty").max(64, "id is too long");

export const deliveryStatus = z.enum(["sending", "retrying", "delivered", "failed"]).meta({
  description:
    "`sending` and `retrying` while under way (a retry waits for its time), then `delivered` or `failed`",
});

const lastDelivery = z.object({
  at: isoDate,
  event: z.string(),
  status: deliveryStatus,
  error: z.string().nullable(),
});

const channelCommonOutput = {
  id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  events: z.array(alertEventName),
  stacks: z.array(z.string()),
  language: alertLanguage,
  vulnerabilitySeverity,
  alertOnFirstScan: z.boolean(),
  failing: z.boolean().meta({ description: "Whether the channel's last 10 deliveries all failed" }),
  lastDelivery: lastDelivery.nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
};

export const alertChannel = z.discriminatedUnion(
  "kind",
  CHANNEL_KINDS.map((kind) =>
    z.object({ ...channelCommonOutput, kind: z.literal(kind), settings: channelSettingsOutput[kind] }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
) as unknown as z.ZodType<
  {
    [K in ChannelKind]: {
      id: string;
      name: string;
      enabled: boolean;
      events: AlertEventName[];
      stacks: string[];
      language: (typeof ALERT_LANGUAGES)[number];
      vulnerabilitySeverity: z.infer<typeof vulnerabilitySeverity>;
      alertOnFirstScan: boolean;
      failing: boolean;
      lastDelivery: z.infer<typeof lastDelivery> | null;
      createdAt: Date;
      updatedAt: Date;
      kind: K;
      settings: ChannelSettingsOutput<K>;
    };
  }[ChannelKind]
>;

export const deliveryAttempt = z.object({
  at: isoDate,
  delivered: z.boolean(),
  status: z.number().int().nullable().meta({
    description:
      "The service's answer: an HTTP status, or for email the SMTP reply code; null without an answer",
  }),
  error: z.string().nullable(),
});

export const alertDelivery = z.object({
  id: z.string(),
  createdAt: isoDate,
  event: z.union([alertEventName, z.literal("test")]),
  stack: z
    .string()
    .nullable()
    .meta({ description: "The stack (or stacks, comma separated) the alert is about" }),
  summary: z.string().meta({ example: "Deploy failed: redeploy of web" }),
  status: deliveryStatus,
  error: z.string().nullable().meta({ description: "The last attempt's error" }),
  attempts: z.array(deliveryAttempt),
});

export const testAnswer = z.object({
  delivered: z.boolean(),
  status: z.number().int().nullable().meta({
    description:
      "The service's answer: an HTTP status, or for email the SMTP reply code; null without an answer",
  }),
  message: z.string().meta({ example: "Slack accepted the message" }),
});

const notFound = { 404: "No alert channel has this id" };

export const channelProcedures = {
  list: sessionOnly({
    permission: "admin",
    method: "GET",
    path: "/api/v0/notify/channels",
    tags,
    summary: "The alert channels, each with its state and last delivery",
  }).output(z.object({ channels: z.array(alertChannel) })),
  create: sessionOnly({
    permission: "admin",
    method: "POST",
    path: "/api/v0/notify/channels",
    tags,
    summary: "Add an alert channel",
    description:
      "`settings` depends on `kind`. Secrets (tokens, passwords, webhook URLs and secrets, Apprise URLs) are " +
      "stored encrypted and never answered: the answer says of each whether it is set.",
  })
    .input(createChannelInput)
    .output(z.object({ channel: alertChannel })),
  get: sessionOnly({
    permission: "admin",
    method: "GET",
    path: "/api/v0/notify/channels/{id}",
    tags,
    summary: "One alert channel",
    errors: notFound,
  })
    .input(z.strictObject({ id: channelId }))
    .output(z.object({ channel: alertChannel })),
  update: sessionOnly({
    permission: "admin",
    method: "PATCH",
    path: "/api/v0/notify/channels/{id}",
    tags,
    summary: "Change an alert channel",
    description:
      "Only the fields given change; `settings` holds the settings to change, as `POST` takes them for the " +
      "channel's kind (which cannot change). A secret left out is kept, null removes an optional one. When an " +
      "address changes (a server URL, an SMTP host or port, a webhook URL), every secret of the channel must be " +
      "given again: a secret never follows a changed address.",
    errors: notFound,
  })
    .input(
      z.strictObject({
        id: channelId,
        name: channelName.optional(),
        enabled: z.boolean().optional(),
        events: events.optional(),
        stacks: stacks.optional(),
        language: alertLanguage.optional(),
        vulnerabilitySeverity: vulnerabilitySeverity.optional(),
        alertOnFirstScan: z.boolean().optional(),
        settings: z
          .record(z.string(), z.unknown())
          .optional()
          .meta({ description: "Settings of the channel's kind to change; see `POST`" }),
      }),
    )
    .output(z.object({ channel: alertChannel })),
  remove: sessionOnly({
    permission: "admin",
    method: "DELETE",
    path: "/api/v0/notify/channels/{id}",
    tags,
    summary: "Remove an alert channel and its delivery log",
    errors: notFound,
  })
    .input(z.strictObject({ id: channelId }))
    .output(z.object({ deleted: z.literal(true) })),
  test: sessionOnly({
    permission: "admin",
    method: "POST",
    path: "/api/v0/notify/channels/{id}/test",
    tags,
    summary: "Send a test alert through the channel and say what the service answered",
    description:
      "Sent once, at once, whether the channel is on or not, and kept in its delivery log. `delivered` false " +
      "is still a 200: the answer is the service's.",
    errors: notFound,
  })
    .input(z.strictObject({ id: channelId }))
    .output(testAnswer),
  deliveries: sessionOnly({
    permission: "admin",
    method: "GET",
    path: "/api/v0/notify/channels/{id}/deliveries",
    tags,
    summary: "The channel's last 200 deliveries, newest first, with every attempt",
    errors: notFound,
  })
    .input(z.strictObject({ id: channelId }))
    .output(z.object({ deliveries: z.array(alertDelivery) })),
};
