import type {
  AlertEventName,
  apiKeyScope,
  ChannelKind,
  deliveryAttempt,
  deliveryStatus,
  deployAction,
  deployRun,
  role,
  runStage,
  scanErrorKind,
  scanStatus,
  settleState,
  vulnerability,
  vulnerabilitySeverity,
} from "@stackgate/contract";
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { z } from "zod";

// Stored enums and JSON columns take their values and shapes from the contract, the one definition
// (SQLite's text enums are types only: no migration changes).
type KeyScope = z.infer<typeof apiKeyScope>;
type StoredVulnerability = z.infer<typeof vulnerability>;
/** A stage as stored: its times as milliseconds (JSON has no dates). */
export type StoredStage = Omit<z.infer<typeof runStage>, "startedAt" | "endedAt"> & {
  startedAt: number | null;
  endedAt: number | null;
};

const createdAt = () =>
  integer("created_at", { mode: "timestamp_ms" }).notNull().default(sql`(unixepoch() * 1000)`);
const updatedAt = () =>
  integer("updated_at", { mode: "timestamp_ms" }).notNull().default(sql`(unixepoch() * 1000)`);

// Better Auth's tables (email + password sessions).
export const user = sqliteTable("user", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: integer("email_verified", { mode: "boolean" }).notNull().default(false),
  image: text("image"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  /** Migration 0004 made every person who existed before roles an admin. */
  role: text("role").$type<z.infer<typeof role>>().notNull().default("viewer"),
  /** A disabled person has no session and their API keys get 401. */
  disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
  /** The role comes from single sign-on (set again at every sign-in) and cannot be edited here. */
  roleFromSso: integer("role_from_sso", { mode: "boolean" }).notNull().default(false),
  lastSignInAt: integer("last_sign_in_at", { mode: "timestamp_ms" }),
});

export const session = sqliteTable(
  "session",
  {
    id: text("id").primaryKey(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    token: text("token").notNull().unique(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
  },
  (table) => [index("session_user_id_idx").on(table.userId)],
);

export const account = sqliteTable(
  "account",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: integer("access_token_expires_at", { mode: "timestamp_ms" }),
    refreshTokenExpiresAt: integer("refresh_token_expires_at", { mode: "timestamp_ms" }),
    scope: text("scope"),
    password: text("password"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index("account_user_id_idx").on(table.userId)],
);

export const verification = sqliteTable("verification", {
  id: text("id").primaryKey(),
  identifier: text("identifier").notNull(),
  value: text("value").notNull(),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

// Stackgate's own tables.
export const apiKey = sqliteTable(
  "api_key",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    start: text("start").notNull(),
    keyHash: text("key_hash").notNull().unique(),
    createdAt: createdAt(),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
    /** Null: the full rights of an API key (keys made before scopes existed). */
    scope: text("scope", { mode: "json" }).$type<KeyScope>(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
  },
  (table) => [index("api_key_user_id_idx").on(table.userId)],
);

/** The one upstream connection; key and secret are sealed with the secret box. */
export const upstreamConnection = sqliteTable("upstream_connection", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  url: text("url").notNull(),
  sealedKey: text("sealed_key").notNull(),
  sealedSecret: text("sealed_secret").notNull(),
  createdAt: createdAt(),
});

/**
 * Failure-alert settings from before alert channels: a single row with id 1; the token is sealed. At
 * start, notify/upgrade.ts turns the row into the first ntfy channel and deletes it.
 */
export const notifySettings = sqliteTable("notify_settings", {
  id: integer("id").primaryKey(),
  url: text("url").notNull(),
  topic: text("topic").notNull(),
  sealedToken: text("sealed_token"),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  /** Alerts on vulnerabilities a scan finds that the image's previous successful scan did not have. */
  vulnerabilityAlerts: integer("vulnerability_alerts", { mode: "boolean" }).notNull().default(false),
  vulnerabilitySeverity: text("vulnerability_severity")
    .$type<z.infer<typeof vulnerabilitySeverity>>()
    .notNull()
    .default("critical"),
  alertOnFirstScan: integer("alert_on_first_scan", { mode: "boolean" }).notNull().default(false),
  updatedAt: updatedAt(),
});

export const deployHistory = sqliteTable(
  "deploy_history",
  {
    id: text("id").primaryKey(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
    actor: text("actor").notNull(),
    via: text("via").$type<z.infer<typeof deployRun.shape.via>>().notNull(),
    /** The person, or the API key's owner; with their email then, and the key's id when a key acted. */
    userId: text("user_id"),
    actorEmail: text("actor_email"),
    keyId: text("key_id"),
    stack: text("stack").notNull(),
    action: text("action").$type<z.infer<typeof deployAction>>().notNull(),
    success: integer("success", { mode: "boolean" }).notNull(),
    message: text("message").notNull(),
    /**
     * Written before the first call to Komodo and cleared when the action ends, so an action
     * cut off by a crash is still on record. While true, createdAt is the start, success false.
     */
    running: integer("running", { mode: "boolean" }).notNull().default(false),
    /** While running: the step Komodo is on (pull, take-down, deploy), where known. */
    step: text("step"),
    /**
     * While running: the backend following it (db/cluster.ts). Once that backend is gone, another
     * records the action as interrupted. Null on rows from before several backends.
     */
    runner: text("runner"),
    /** A repository stack's deployed commit before and after, and the message of the one after. */
    commitFrom: text("commit_from"),
    commitTo: text("commit_to"),
    commitMessage: text("commit_message"),
    /** Whether the deploy stayed up (contract `runSettle`); null on rows from before the settle window. */
    settleState: text("settle_state").$type<z.infer<typeof settleState>>(),
    settleReason: text("settle_reason"),
    settleUntil: integer("settle_until", { mode: "timestamp_ms" }),
    /** Komodo's Update of each step, as it starts: another backend reads a cut run's real outcome there. */
    komodoUpdates: text("komodo_updates", { mode: "json" }).$type<string[]>(),
  },
  (table) => [
    // The history list pages newest first by (createdAt, id), alone or narrowed to one stack,
    // caller or outcome; each narrowing has its index so a page reads only its own rows.
    index("deploy_history_created_at_id_idx").on(table.createdAt, table.id),
    index("deploy_history_stack_idx").on(table.stack, table.createdAt, table.id),
    index("deploy_history_actor_idx").on(table.actor, table.createdAt, table.id),
    index("deploy_history_success_idx").on(table.success, table.createdAt, table.id),
    index("deploy_history_running_idx").on(table.running).where(sql`running = 1`),
  ],
);

/** What each service ran before and after a deploy (its image's digest); `changed` when they differ. */
export const deployChange = sqliteTable(
  "deploy_change",
  {
    runId: text("run_id").notNull(),
    stack: text("stack").notNull(),
    service: text("service").notNull(),
    image: text("image").notNull(),
    fromDigest: text("from_digest"),
    toDigest: text("to_digest"),
    changed: integer("changed", { mode: "boolean" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.runId, table.service] }),
    // Which deploy brought what a service runs now (a stack's page).
    index("deploy_change_service_idx").on(table.stack, table.service, table.toDigest),
  ],
);

/** The output of a run's Komodo stages (contract `runStage`), at most 256 KiB of it. */
export const deployLog = sqliteTable("deploy_log", {
  runId: text("run_id").primaryKey(),
  stages: text("stages", { mode: "json" }).$type<StoredStage[]>().notNull(),
  truncated: integer("truncated", { mode: "boolean" }).notNull().default(false),
});

/**
 * The latest scan result per image. A failed rescan keeps the counts, vulnerabilities and
 * scannedAt of the last successful scan; errorKind and error describe the last failure.
 */
export const imageScan = sqliteTable("image_scan", {
  image: text("image").primaryKey(),
  status: text("status").$type<z.infer<typeof scanStatus>>().notNull(),
  critical: integer("critical").notNull().default(0),
  high: integer("high").notNull().default(0),
  medium: integer("medium").notNull().default(0),
  low: integer("low").notNull().default(0),
  unknown: integer("unknown").notNull().default(0),
  fixable: integer("fixable").notNull().default(0),
  vulnerabilities: text("vulnerabilities", { mode: "json" })
    .$type<StoredVulnerability[]>()
    .notNull()
    .default(sql`'[]'`),
  requestedAt: integer("requested_at", { mode: "timestamp_ms" }),
  attemptedAt: integer("attempted_at", { mode: "timestamp_ms" }),
  scannedAt: integer("scanned_at", { mode: "timestamp_ms" }),
  errorKind: text("error_kind").$type<z.infer<typeof scanErrorKind>>(),
  error: text("error"),
});

/** One-time invitation links; only the token's SHA-256 hash is stored. */
export const invitation = sqliteTable(
  "invitation",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    role: text("role").$type<z.infer<typeof role>>().notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    invitedById: text("invited_by_id").references(() => user.id, { onDelete: "set null" }),
    /** Kept so the list still names who invited after that person is deleted. */
    invitedByName: text("invited_by_name").notNull(),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    acceptedAt: integer("accepted_at", { mode: "timestamp_ms" }),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
  },
  (table) => [index("invitation_email_idx").on(table.email)],
);

/** Who changed what (people, roles, invitations, settings, keys, stacks); never a secret. */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    actorId: text("actor_id"),
    /** The actor's name and email when the change was made, kept after the person is deleted. */
    actor: text("actor").notNull(),
    actorEmail: text("actor_email"),
    /** The API key that acted, if one did. */
    keyId: text("key_id"),
    action: text("action").notNull(),
    target: text("target"),
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (table) => [index("audit_log_at_id_idx").on(table.at, table.id)],
);

/**
 * Idempotency-Key of a deploy request: a repeat within 24 hours with the same key (per owner) and
 * the same body answers the same run instead of deploying again.
 */
export const deployIdempotency = sqliteTable(
  "deploy_idempotency",
  {
    ownerId: text("owner_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    runId: text("run_id").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.ownerId, table.key] }),
    index("deploy_idempotency_created_at_idx").on(table.createdAt),
  ],
);

/** Where alerts go (notify/channels.ts). Secrets are sealed together in `sealedSecrets` (JSON inside). */
export const alertChannel = sqliteTable(
  "alert_channel",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    kind: text("kind").$type<ChannelKind>().notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    events: text("events", { mode: "json" }).$type<AlertEventName[]>().notNull(),
    /** Stack names or patterns, as a key's scope holds them. */
    stacks: text("stacks", { mode: "json" }).$type<string[]>().notNull(),
    language: text("language").$type<"en" | "es">().notNull(),
    vulnerabilitySeverity: text("vulnerability_severity")
      .$type<z.infer<typeof vulnerabilitySeverity>>()
      .notNull()
      .default("critical"),
    alertOnFirstScan: integer("alert_on_first_scan", { mode: "boolean" }).notNull().default(false),
    /** The kind's settings without its secrets. */
    settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    sealedSecrets: text("sealed_secrets"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("alert_channel_created_at_idx").on(table.createdAt, table.id)],
);

/**
 * One alert to one channel, with every attempt. The row is the claim: one (channel, event) pair is
 * inserted once, by one backend, which alone sends it.
 */
export const alertDelivery = sqliteTable(
  "alert_delivery",
  {
    id: text("id").primaryKey(),
    channelId: text("channel_id")
      .notNull()
      .references(() => alertChannel.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    event: text("event").notNull(),
    stack: text("stack"),
    summary: text("summary").notNull(),
    status: text("status").$type<z.infer<typeof deliveryStatus>>().notNull(),
    attempts: text("attempts", { mode: "json" }).$type<z.input<typeof deliveryAttempt>[]>().notNull(),
    /** While sending or retrying: the backend doing it (db/cluster.ts). */
    runner: text("runner"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    uniqueIndex("alert_delivery_event_idx").on(table.channelId, table.eventId),
    index("alert_delivery_channel_idx").on(table.channelId, table.createdAt, table.id),
    index("alert_delivery_runner_idx").on(table.runner),
  ],
);

/**
 * The stack services Komodo shows an image update for (notify/update-watch.ts), so that each is
 * alerted once, across restarts. The row with an empty stack and service marks that the first look,
 * which alerts nothing, was taken.
 */
export const alertUpdateSeen = sqliteTable(
  "alert_update_seen",
  {
    stack: text("stack").notNull(),
    service: text("service").notNull(),
    image: text("image").notNull(),
    seenAt: integer("seen_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.stack, table.service] })],
);
