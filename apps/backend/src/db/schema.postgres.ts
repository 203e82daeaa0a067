import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";

// The tables of schema.ts in PostgreSQL's types, for PostgreSQL's migrations only: features query
// with schema.ts's tables on either engine (database.ts says how). schema.test.ts holds the two to
// the same tables, columns, keys and indexes. Timestamps are milliseconds since the epoch (bigint),
// as SQLite stores them; JSON columns are text, as SQLite stores them.

const millis = (name: string) => bigint(name, { mode: "number" });
const now = sql`(extract(epoch from now()) * 1000)::bigint`;
const createdAt = () => millis("created_at").notNull().default(now);
const updatedAt = () => millis("updated_at").notNull().default(now);

export const user = pgTable("user", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  role: text("role").notNull().default("viewer"),
  disabled: boolean("disabled").notNull().default(false),
  roleFromSso: boolean("role_from_sso").notNull().default(false),
  lastSignInAt: millis("last_sign_in_at"),
});

export const session = pgTable(
  "session",
  {
    id: text("id").primaryKey(),
    expiresAt: millis("expires_at").notNull(),
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

export const account = pgTable(
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
    accessTokenExpiresAt: millis("access_token_expires_at"),
    refreshTokenExpiresAt: millis("refresh_token_expires_at"),
    scope: text("scope"),
    password: text("password"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index("account_user_id_idx").on(table.userId)],
);

export const verification = pgTable("verification", {
  id: text("id").primaryKey(),
  identifier: text("identifier").notNull(),
  value: text("value").notNull(),
  expiresAt: millis("expires_at").notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const apiKey = pgTable(
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
    lastUsedAt: millis("last_used_at"),
    scope: text("scope"),
    expiresAt: millis("expires_at"),
  },
  (table) => [index("api_key_user_id_idx").on(table.userId)],
);

export const upstreamConnection = pgTable("upstream_connection", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  url: text("url").notNull(),
  sealedKey: text("sealed_key").notNull(),
  sealedSecret: text("sealed_secret").notNull(),
  createdAt: createdAt(),
});

export const notifySettings = pgTable("notify_settings", {
  id: integer("id").primaryKey(),
  url: text("url").notNull(),
  topic: text("topic").notNull(),
  sealedToken: text("sealed_token"),
  enabled: boolean("enabled").notNull(),
  vulnerabilityAlerts: boolean("vulnerability_alerts").notNull().default(false),
  vulnerabilitySeverity: text("vulnerability_severity").notNull().default("critical"),
  alertOnFirstScan: boolean("alert_on_first_scan").notNull().default(false),
  updatedAt: updatedAt(),
});

export const deployHistory = pgTable(
  "deploy_history",
  {
    id: text("id").primaryKey(),
    createdAt: millis("created_at").notNull(),
    startedAt: millis("started_at").notNull(),
    actor: text("actor").notNull(),
    via: text("via").notNull(),
    userId: text("user_id"),
    actorEmail: text("actor_email"),
    keyId: text("key_id"),
    stack: text("stack").notNull(),
    action: text("action").notNull(),
    success: boolean("success").notNull(),
    message: text("message").notNull(),
    running: boolean("running").notNull().default(false),
    step: text("step"),
    runner: text("runner"),
    commitFrom: text("commit_from"),
    commitTo: text("commit_to"),
    commitMessage: text("commit_message"),
    settleState: text("settle_state"),
    settleReason: text("settle_reason"),
    settleUntil: millis("settle_until"),
    komodoUpdates: text("komodo_updates"),
  },
  (table) => [
    index("deploy_history_created_at_id_idx").on(table.createdAt, table.id),
    index("deploy_history_stack_idx").on(table.stack, table.createdAt, table.id),
    index("deploy_history_actor_idx").on(table.actor, table.createdAt, table.id),
    index("deploy_history_success_idx").on(table.success, table.createdAt, table.id),
    index("deploy_history_running_idx").on(table.running).where(sql`running`),
  ],
);

export const imageScan = pgTable("image_scan", {
  image: text("image").primaryKey(),
  status: text("status").notNull(),
  critical: integer("critical").notNull().default(0),
  high: integer("high").notNull().default(0),
  medium: integer("medium").notNull().default(0),
  low: integer("low").notNull().default(0),
  unknown: integer("unknown").notNull().default(0),
  fixable: integer("fixable").notNull().default(0),
  vulnerabilities: text("vulnerabilities").notNull().default("[]"),
  requestedAt: millis("requested_at"),
  attemptedAt: millis("attempted_at"),
  scannedAt: millis("scanned_at"),
  errorKind: text("error_kind"),
  error: text("error"),
});

export const invitation = pgTable(
  "invitation",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    role: text("role").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    invitedById: text("invited_by_id").references(() => user.id, { onDelete: "set null" }),
    invitedByName: text("invited_by_name").notNull(),
    createdAt: createdAt(),
    expiresAt: millis("expires_at").notNull(),
    acceptedAt: millis("accepted_at"),
    revokedAt: millis("revoked_at"),
  },
  (table) => [index("invitation_email_idx").on(table.email)],
);

export const deployChange = pgTable(
  "deploy_change",
  {
    runId: text("run_id").notNull(),
    stack: text("stack").notNull(),
    service: text("service").notNull(),
    image: text("image").notNull(),
    fromDigest: text("from_digest"),
    toDigest: text("to_digest"),
    changed: boolean("changed").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.runId, table.service] }),
    index("deploy_change_service_idx").on(table.stack, table.service, table.toDigest),
  ],
);

export const deployLog = pgTable("deploy_log", {
  runId: text("run_id").primaryKey(),
  stages: text("stages").notNull(),
  truncated: boolean("truncated").notNull().default(false),
});

export const auditLog = pgTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    at: millis("at").notNull(),
    actorId: text("actor_id"),
    actor: text("actor").notNull(),
    actorEmail: text("actor_email"),
    keyId: text("key_id"),
    action: text("action").notNull(),
    target: text("target"),
    detail: text("detail"),
  },
  (table) => [index("audit_log_at_id_idx").on(table.at, table.id)],
);

export const deployIdempotency = pgTable(
  "deploy_idempotency",
  {
    ownerId: text("owner_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    runId: text("run_id").notNull(),
    createdAt: millis("created_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.ownerId, table.key] }),
    index("deploy_idempotency_created_at_idx").on(table.createdAt),
  ],
);

export const alertChannel = pgTable(
  "alert_channel",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    kind: text("kind").notNull(),
    enabled: boolean("enabled").notNull(),
    events: text("events").notNull(),
    stacks: text("stacks").notNull(),
    language: text("language").notNull(),
    vulnerabilitySeverity: text("vulnerability_severity").notNull().default("critical"),
    alertOnFirstScan: boolean("alert_on_first_scan").notNull().default(false),
    settings: text("settings").notNull(),
    sealedSecrets: text("sealed_secrets"),
    createdAt: millis("created_at").notNull(),
    updatedAt: millis("updated_at").notNull(),
  },
  (table) => [index("alert_channel_created_at_idx").on(table.createdAt, table.id)],
);

export const alertDelivery = pgTable(
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
    status: text("status").notNull(),
    attempts: text("attempts").notNull(),
    runner: text("runner"),
    createdAt: millis("created_at").notNull(),
    updatedAt: millis("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("alert_delivery_event_idx").on(table.channelId, table.eventId),
    index("alert_delivery_channel_idx").on(table.channelId, table.createdAt, table.id),
    index("alert_delivery_runner_idx").on(table.runner),
  ],
);

export const alertUpdateSeen = pgTable(
  "alert_update_seen",
  {
    stack: text("stack").notNull(),
    service: text("service").notNull(),
    image: text("image").notNull(),
    seenAt: millis("seen_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.stack, table.service] })],
);
