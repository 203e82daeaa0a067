import { randomUUID } from "node:crypto";
import {
  type AlertEventName,
  CHANNEL_FIELDS,
  type ChannelKind,
  channelSettingsInput,
  type createChannelInput,
} from "@stackgate/contract";
import { and, asc, eq } from "drizzle-orm";
import type { z } from "zod";
import type { Actor, AuditService } from "../audit/service.ts";
import type { Database, Transaction } from "../db/database.ts";
import { alertChannel } from "../db/schema.ts";
import { normalStackPattern } from "../identity/apikeys/scope.ts";
import type { Clock } from "../platform/clock.ts";
import type { SecretBox } from "../platform/secret-box.ts";
import { describeSettings, splitSettings } from "./kinds/index.ts";

export type ChannelRow = typeof alertChannel.$inferSelect;
export type ChannelInput = z.infer<typeof createChannelInput>;
type Fields = Record<string, unknown>;

export interface ChannelPatch {
  name?: string;
  enabled?: boolean;
  events?: AlertEventName[];
  stacks?: string[];
  language?: "en" | "es";
  vulnerabilitySeverity?: ChannelRow["vulnerabilitySeverity"];
  alertOnFirstScan?: boolean;
  settings?: Fields;
}

/** A refused change: `bad-input` names the field (400), `not-found` (404), `conflict` (409). */
export class ChannelError extends Error {
  readonly kind: "bad-input" | "not-found" | "conflict";
  constructor(kind: ChannelError["kind"], message: string) {
    super(message);
    this.name = "ChannelError";
    this.kind = kind;
  }
}

const MAX_CHANNELS = 50;

export const notFound = (id: string) => new ChannelError("not-found", `No alert channel has the id '${id}'`);

/** Where channels are kept: their settings as they are, their secrets sealed, every change audited. */
export function createChannelStore({
  db,
  secretBox,
  clock,
  audit,
}: {
  db: Database;
  secretBox: SecretBox;
  clock: Clock;
  audit: AuditService;
}) {
  const secretsOf = (row: Pick<ChannelRow, "sealedSecrets">): Fields =>
    row.sealedSecrets ? (JSON.parse(secretBox.open(row.sealedSecrets)) as Fields) : {};
  const seal = (secrets: Fields) =>
    Object.keys(secrets).length > 0 ? secretBox.seal(JSON.stringify(secrets)) : null;

  /** The channel without its secrets, as the API and the audit show it (state aside). */
  const describe = (row: ChannelRow) => ({
    id: row.id,
    name: row.name,
    kind: row.kind,
    enabled: row.enabled,
    events: row.events,
    stacks: row.stacks,
    language: row.language,
    vulnerabilitySeverity: row.vulnerabilitySeverity,
    alertOnFirstScan: row.alertOnFirstScan,
    settings: describeSettings(row.kind, row.settings, secretsOf(row)),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  });

  // Read for every alert (every deploy's end), so prepared (db/database.ts).
  const listAll = db.prepare("alert_channels_all", (q) =>
    q.select().from(alertChannel).orderBy(asc(alertChannel.createdAt), asc(alertChannel.id)),
  );

  const find = async (id: string, from: Pick<Transaction, "select"> = db) =>
    (await from.select().from(alertChannel).where(eq(alertChannel.id, id)))[0];

  return {
    secretsOf,
    describe,
    find,

    /** Every channel, oldest first. */
    list: () => listAll.execute({}),

    /** The first ntfy channel, which the specification's ntfy endpoints act on. */
    firstNtfy: async (from: Pick<Transaction, "select"> = db) =>
      (
        await from
          .select()
          .from(alertChannel)
          .where(eq(alertChannel.kind, "ntfy"))
          .orderBy(asc(alertChannel.createdAt), asc(alertChannel.id))
          .limit(1)
      )[0],

    /** Adds a channel; `audited` false leaves the audit to the caller (the ntfy endpoints record their own). */
    async create(input: ChannelInput, by: Actor, tx?: Transaction, { audited = true } = {}) {
      const given = parseSettings(input.kind, input.settings as Fields, { partial: false });
      const { settings, secrets } = splitSettings(input.kind, given);
      checkSettings(input.kind, settings, secrets);
      const now = new Date(clock.now());
      const row: ChannelRow = {
        id: randomUUID(),
        name: input.name,
        kind: input.kind,
        enabled: input.enabled ?? true,
        events: input.events,
        stacks: (input.stacks ?? ["*"]).map(normalStackPattern),
        language: input.language ?? "en",
        vulnerabilitySeverity: input.vulnerabilitySeverity ?? "critical",
        alertOnFirstScan: input.alertOnFirstScan ?? false,
        settings,
        sealedSecrets: seal(secrets),
        createdAt: now,
        updatedAt: now,
      };
      const write = async (into: Transaction) => {
        if ((await into.$count(alertChannel)) >= MAX_CHANNELS)
          throw new ChannelError(
            "conflict",
            `There are already ${MAX_CHANNELS} alert channels: remove one first`,
          );
        await into.insert(alertChannel).values(row);
        const { createdAt: _, updatedAt: __, ...detail } = describe(row);
        if (audited)
          await audit.recordChange({ by, action: "alerts.channel-created", target: row.name, detail }, into);
        return row;
      };
      return tx ? write(tx) : db.transaction(write);
    },

    /**
     * Changes what `patch` gives. Settings are checked against the channel's kind; secrets left out
     * are kept, unless an address changes: then every secret the channel holds must come again.
     */
    async update(id: string, patch: ChannelPatch, by: Actor, tx?: Transaction, { audited = true } = {}) {
      const write = async (into: Transaction) => {
        const existing = await find(id, into);
        if (!existing) throw notFound(id);
        const given =
          patch.settings === undefined ? {} : parseSettings(existing.kind, patch.settings, { partial: true });
        const oldSecrets = secretsOf(existing);
        const { settings, secrets, replaced, removed } = mergeSettings(existing, oldSecrets, given);
        checkSettings(existing.kind, settings, secrets);
        const row: ChannelRow = {
          ...existing,
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
          ...(patch.events !== undefined ? { events: patch.events } : {}),
          ...(patch.stacks !== undefined ? { stacks: patch.stacks.map(normalStackPattern) } : {}),
          ...(patch.language !== undefined ? { language: patch.language } : {}),
          ...(patch.vulnerabilitySeverity !== undefined
            ? { vulnerabilitySeverity: patch.vulnerabilitySeverity }
            : {}),
          ...(patch.alertOnFirstScan !== undefined ? { alertOnFirstScan: patch.alertOnFirstScan } : {}),
          settings,
          sealedSecrets: seal(secrets),
          updatedAt: new Date(clock.now()),
        };
        await into.update(alertChannel).set(row).where(eq(alertChannel.id, id));
        const changed = changes(describe(existing), describe(row));
        if (audited && (Object.keys(changed).length > 0 || replaced.length > 0))
          await audit.recordChange(
            {
              by,
              action: "alerts.channel-updated",
              target: row.name,
              detail: {
                id,
                changed,
                ...(replaced.length > 0 ? { secretsReplaced: replaced } : {}),
                ...(removed.length > 0 ? { secretsRemoved: removed } : {}),
              },
            },
            into,
          );
        return row;
      };
      return tx ? write(tx) : db.transaction(write);
    },

    async remove(id: string, by: Actor, tx?: Transaction, { audited = true } = {}) {
      const write = async (into: Transaction) => {
        const [removed] = await into
          .delete(alertChannel)
          .where(and(eq(alertChannel.id, id)))
          .returning();
        if (!removed) throw notFound(id);
        if (audited)
          await audit.recordChange(
            {
              by,
              action: "alerts.channel-deleted",
              target: removed.name,
              detail: { id, kind: removed.kind },
            },
            into,
          );
        return removed;
      };
      return tx ? write(tx) : db.transaction(write);
    },
  };
}

export type ChannelStore = ReturnType<typeof createChannelStore>;

/** Settings checked against the kind's schema (all of them, or those a PATCH gives); a refusal names the field. */
function parseSettings(kind: ChannelKind, given: Fields, { partial }: { partial: boolean }): Fields {
  const schema = channelSettingsInput[kind];
  const parsed = (partial ? schema.partial() : schema).safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = ["settings", ...issue.path.map(String)].join(".");
  const message =
    issue.code === "unrecognized_keys"
      ? `settings: a ${kind} channel has no setting ${issue.keys.map((key) => `'${key}'`).join(", ")}`
      : `${path}: ${issue.message}`;
  throw new ChannelError("bad-input", message);
}

/** Whether an address stays the same: a server URL by its origin (the secret goes to the same server), anything else exactly. */
function sameAddress(before: unknown, after: unknown, isSecret: boolean): boolean {
  if (before === after) return true;
  if (isSecret || typeof before !== "string" || typeof after !== "string") return false;
  return URL.canParse(before) && URL.canParse(after) && new URL(before).origin === new URL(after).origin;
}

function mergeSettings(existing: ChannelRow, oldSecrets: Fields, given: Fields) {
  const { secrets: secretFields, address } = CHANNEL_FIELDS[existing.kind];
  const moved = address.filter(
    (field) =>
      field in given &&
      !sameAddress(
        secretFields.includes(field) ? oldSecrets[field] : existing.settings[field],
        given[field],
        secretFields.includes(field),
      ),
  );
  if (moved.length > 0) {
    const missing = secretFields.filter((field) => !(field in given) && oldSecrets[field] != null);
    if (missing.length > 0)
      throw new ChannelError(
        "bad-input",
        `settings.${missing[0]}: ${moved[0]} changed, so give ${missing.join(" and ")} again (or null for none): ` +
          "a secret never follows a changed address",
      );
  }
  const secrets = { ...oldSecrets };
  const replaced: string[] = [];
  const removed: string[] = [];
  const plain: Fields = { ...existing.settings };
  for (const [field, value] of Object.entries(given)) {
    if (!secretFields.includes(field)) {
      plain[field] = value;
    } else if (value === null) {
      if (secrets[field] != null) removed.push(field);
      delete secrets[field];
    } else {
      secrets[field] = value;
      replaced.push(field);
    }
  }
  const split = splitSettings(existing.kind, { ...plain, ...secrets });
  return { ...split, replaced, removed };
}

/** What one field of a kind needs of another, which no single field's schema can say. */
function checkSettings(kind: ChannelKind, settings: Fields, secrets: Fields) {
  if (kind === "email") {
    if (settings.username && !secrets.password)
      throw new ChannelError("bad-input", "settings.password: give the password that goes with the username");
    if (!settings.username && secrets.password)
      throw new ChannelError("bad-input", "settings.username: a password needs the username it goes with");
  }
  if (kind === "apprise") {
    const hasKey = settings.key != null;
    if (hasKey === (secrets.urls != null))
      throw new ChannelError(
        "bad-input",
        hasKey
          ? "settings.urls: give either key (a configuration saved in Apprise API) or urls, not both"
          : "settings.key: give key (a configuration saved in Apprise API) or urls",
      );
  }
}

/** The fields that differ, as `{from, to}` (settings by `settings.<field>`). */
function changes(before: ReturnType<ChannelStore["describe"]>, after: ReturnType<ChannelStore["describe"]>) {
  const changed: Record<string, { from: unknown; to: unknown }> = {};
  const compare = (field: string, from: unknown, to: unknown) => {
    if (JSON.stringify(from) !== JSON.stringify(to)) changed[field] = { from, to };
  };
  for (const field of [
    "name",
    "enabled",
    "events",
    "stacks",
    "language",
    "vulnerabilitySeverity",
    "alertOnFirstScan",
  ] as const)
    compare(field, before[field], after[field]);
  const keys = new Set([...Object.keys(before.settings), ...Object.keys(after.settings)]);
  for (const key of keys) compare(`settings.${key}`, before.settings[key], after.settings[key]);
  return changed;
}
