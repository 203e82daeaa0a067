import type { AlertEventName } from "@stackgate/contract";
import type { Actor, AuditService } from "../audit/service.ts";
import type { ConnectionService } from "../connection/service.ts";
import { type Cluster, singleBackend } from "../db/cluster.ts";
import type { Database } from "../db/database.ts";
import type { DeployRun, FinishedRun } from "../deploy/run.ts";
import { visibilityOf } from "../identity/apikeys/scope.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/logger.ts";
import type { SecretBox } from "../platform/secret-box.ts";
import type { Vulnerability } from "../scans/trivy-report.ts";
import {
  type AlertEvent,
  deployFinishedEvent,
  deployUnstableEvent,
  stacksOf,
  vulnerabilityEvent,
} from "./alert.ts";
import {
  type ChannelInput,
  type ChannelPatch,
  type ChannelRow,
  createChannelStore,
  notFound,
} from "./channels.ts";
import { createDeliveries, type RetryPolicy } from "./deliveries.ts";
import type { Attempt } from "./kinds/attempt.ts";
import { sendNtfy } from "./kinds/ntfy.ts";
import { renderAlert } from "./message.ts";
import { watchUpdates } from "./update-watch.ts";
import { NTFY_TURN, upgradeNtfySettings } from "./upgrade.ts";
import type { AlertSeverity } from "./vulnerability-alert.ts";

/** What the specification's ntfy endpoints take (`/api/v0/deploy/credentials/notify`). */
export interface NotifySettingsInput {
  url: string;
  topic: string;
  /** Omitted: keep the saved token (for the same server only). Null or empty: remove it. */
  token?: string | null;
  enabled?: boolean;
  /** Omitted: keep the saved choice. */
  vulnerabilityAlerts?: boolean;
  vulnerabilitySeverity?: AlertSeverity;
  alertOnFirstScan?: boolean;
}

/** A successful scan of an image, with what its previous successful scan found. */
export interface ScannedImage {
  image: string;
  /** The previous successful scan's findings; null when this was the image's first. */
  previous: readonly Vulnerability[] | null;
  vulnerabilities: readonly Vulnerability[];
  /** The stacks using the image, looked up (live) only when an alert is due. */
  stacksUsing: () => Promise<string[]>;
}

const LEGACY_EVENTS: AlertEventName[] = ["deploy.failed"];
/** How long alerts under way at a stop may still take (the backend exits within 10 s). */
const CLOSING_MS = 2_000;
/** How often the backend that leads looks for deliveries that a backend now gone left under way. */
const ABANDONED_CHECK_MS = 60_000;

/**
 * Alerts: the channels they go to, the events that make them, and their delivery. Every entry point
 * that an event calls (`deployFinished`, `deployUnstable`, `imageScanned`, the update watch) only
 * queues: it never throws and never waits for a service.
 */
export function createNotifyService({
  db,
  secretBox,
  logger,
  clock,
  appUrl,
  audit,
  cluster = singleBackend,
  connection,
  policy,
  updateCheckIntervalMs,
}: {
  db: Database;
  secretBox: SecretBox;
  logger: Logger;
  clock: Clock;
  appUrl: string;
  audit: AuditService;
  cluster?: Cluster;
  /** Komodo, for the stacks' image updates. */
  connection: ConnectionService;
  policy: RetryPolicy;
  updateCheckIntervalMs: number;
}) {
  const channels = createChannelStore({ db, secretBox, clock, audit });
  const deliveries = createDeliveries({ db, clock, logger, cluster, channels, policy });

  const dispatching = new Set<Promise<void>>();
  /** Queues the event for every channel that wants it; resolves once each one's first attempt is made. */
  function dispatch(event: AlertEvent): Promise<void> {
    const work = queue(event).finally(() => dispatching.delete(work));
    dispatching.add(work);
    return work;
  }
  async function queue(event: AlertEvent): Promise<void> {
    try {
      const stacks = stacksOf(event);
      const sent: Promise<unknown>[] = [];
      for (const channel of await channels.list()) {
        if (!channel.enabled || event.type === "test" || !channel.events.includes(event.type)) continue;
        const followed = stacks?.filter(visibilityOf({ stacks: channel.stacks }).admits) ?? [];
        if (stacks !== null && followed.length === 0) continue;
        const message = renderAlert(event, {
          language: channel.language,
          appUrl,
          stacks: followed,
          vulnerabilities: channel,
        });
        if (message) sent.push(deliveries.deliver(channel, event.id, message));
      }
      await Promise.all(sent);
    } catch (error) {
      logger.warn(
        { err: error, event: event.type },
        "an alert could not be sent: its channels could not be read",
      );
    }
  }

  const updates = watchUpdates({
    db,
    clock,
    logger,
    connection,
    cluster,
    intervalMs: updateCheckIntervalMs,
    alert: dispatch,
  });
  const abandonTimer = setInterval(() => {
    if (cluster.leads())
      deliveries
        .abandonGone()
        .catch((error: unknown) => logger.warn({ err: error }, "unfinished alerts could not be checked"));
  }, ABANDONED_CHECK_MS);
  abandonTimer.unref();

  async function describe(row: ChannelRow) {
    return { ...channels.describe(row), ...(await deliveries.stateOf(row.id)) };
  }

  const testMessage = (row: ChannelRow) =>
    renderAlert(
      { type: "test", id: "test" },
      {
        language: row.language,
        appUrl,
        stacks: [],
        vulnerabilities: row,
      },
    )!;

  const answerOf = (attempt: Attempt) => ({
    delivered: attempt.delivered,
    status: attempt.status,
    message: attempt.message,
  });

  /** The first ntfy channel as the specification's ntfy endpoints show it. */
  const legacyView = (row: ChannelRow) => ({
    url: String(row.settings.url),
    topic: String(row.settings.topic),
    enabled: row.enabled,
    tokenSet: channels.secretsOf(row).token != null,
    vulnerabilityAlerts: row.events.includes("vulnerability.new"),
    vulnerabilitySeverity: row.vulnerabilitySeverity,
    alertOnFirstScan: row.alertOnFirstScan,
  });

  return {
    /** Start-up: today's ntfy settings become a channel; deliveries cut off by a stop are closed. */
    async start() {
      await upgradeNtfySettings({ db, channels, secretBox, logger });
      await deliveries.abandonGone();
    },

    // --- Channels -------------------------------------------------------------------------------

    async listChannels() {
      return Promise.all((await channels.list()).map(describe));
    },

    async getChannel(id: string) {
      const row = await channels.find(id);
      if (!row) throw notFound(id);
      return describe(row);
    },

    async createChannel(input: ChannelInput, by: Actor) {
      return describe(await channels.create(input, by));
    },

    async updateChannel(id: string, patch: ChannelPatch, by: Actor) {
      return describe(await channels.update(id, patch, by));
    },

    async removeChannel(id: string, by: Actor) {
      await channels.remove(id, by);
    },

    /** Sends a test through the channel, on or off, and answers what the service said. */
    async testChannel(id: string) {
      const row = await channels.find(id);
      if (!row) throw notFound(id);
      return answerOf(await deliveries.test(row, testMessage(row)));
    },

    async deliveries(id: string) {
      if (!(await channels.find(id))) throw notFound(id);
      return (await deliveries.list(id)).map((row) => ({
        id: row.id,
        createdAt: row.createdAt,
        event: row.event as AlertEventName | "test",
        stack: row.stack,
        summary: row.summary,
        status: row.status,
        error: row.attempts.findLast((attempt) => !attempt.delivered)?.error ?? null,
        attempts: row.attempts.map((attempt) => ({ ...attempt, at: new Date(attempt.at) })),
      }));
    },

    // --- Events ---------------------------------------------------------------------------------

    /** A deploy Stackgate ran has ended: `deploy.failed` or `deploy.succeeded`. */
    deployFinished(run: FinishedRun): Promise<void> {
      return dispatch(deployFinishedEvent(run));
    },

    /**
     * A deployed stack did not settle (issue 31's settle window): `deploy.unstable`, with why. Sent
     * once per run and channel, whichever backend (or how many) reports it.
     */
    deployUnstable(run: DeployRun | FinishedRun, reason: string): Promise<void> {
      return dispatch(deployUnstableEvent(run, reason));
    },

    /**
     * After a successful scan: `vulnerability.new` for each channel whose severity and first-scan
     * choice the new findings meet, naming the stacks it follows that use the image.
     */
    async imageScanned({ image, previous, vulnerabilities, stacksUsing }: ScannedImage) {
      try {
        const wanted = (await channels.list()).some(
          (channel) => channel.enabled && channel.events.includes("vulnerability.new"),
        );
        if (!wanted || vulnerabilities.length === 0) return;
        const stacks = await stacksUsing();
        if (stacks.length === 0) return;
        await dispatch(vulnerabilityEvent(image, stacks, previous, vulnerabilities));
      } catch (error) {
        logger.warn({ err: error, image }, "vulnerability alert not sent");
      }
    },

    /** Looks at Komodo's stacks for new image updates now (the watch does so every interval). */
    checkUpdates: () => updates.check(),

    // --- The specification's ntfy endpoints, on the first ntfy channel ---------------------------

    async get() {
      const row = await channels.firstNtfy();
      return row ? legacyView(row) : null;
    },

    /**
     * Creates or changes the first ntfy channel. As these endpoints always did, a token saved for one
     * server is dropped (never sent) when the settings move to another origin without one.
     */
    async save(input: NotifySettingsInput, by: Actor) {
      return db.transaction(
        async (tx) => {
          const existing = await channels.firstNtfy(tx);
          const token = input.token === "" ? null : input.token;
          let row: ChannelRow;
          if (!existing) {
            row = await channels.create(
              {
                kind: "ntfy",
                name: "ntfy",
                enabled: input.enabled ?? false,
                events: input.vulnerabilityAlerts ? [...LEGACY_EVENTS, "vulnerability.new"] : LEGACY_EVENTS,
                stacks: ["*"],
                language: "en",
                vulnerabilitySeverity: input.vulnerabilitySeverity,
                alertOnFirstScan: input.alertOnFirstScan,
                settings: { url: input.url, topic: input.topic, ...(token ? { token } : {}) },
              },
              by,
              tx,
              { audited: false },
            );
          } else {
            const sameServer = sameOrigin(String(existing.settings.url), input.url);
            const keptToken = sameServer ? channels.secretsOf(existing).token : undefined;
            const events = new Set([...existing.events, ...LEGACY_EVENTS]);
            if (input.vulnerabilityAlerts === true) events.add("vulnerability.new");
            if (input.vulnerabilityAlerts === false) events.delete("vulnerability.new");
            row = await channels.update(
              existing.id,
              {
                enabled: input.enabled ?? false,
                events: [...events],
                vulnerabilitySeverity: input.vulnerabilitySeverity,
                alertOnFirstScan: input.alertOnFirstScan,
                settings: {
                  url: input.url,
                  topic: input.topic,
                  token: token === undefined ? ((keptToken as string | undefined) ?? null) : token,
                },
              },
              by,
              tx,
              { audited: false },
            );
          }
          const saved = legacyView(row);
          // What was saved, as the API answers it: the token only as whether one is set.
          await audit.recordChange(
            { by, action: "alerts.saved", target: "alert settings", detail: saved },
            tx,
          );
          return saved;
        },
        { turn: NTFY_TURN },
      );
    },

    /** Removes the first ntfy channel. */
    remove(by: Actor) {
      return db.transaction(
        async (tx) => {
          const existing = await channels.firstNtfy(tx);
          if (!existing) return false;
          await channels.remove(existing.id, by, tx, { audited: false });
          await audit.recordChange({ by, action: "alerts.removed", target: "alert settings" }, tx);
          return true;
        },
        { turn: NTFY_TURN },
      );
    },

    /**
     * A test through the first ntfy channel (kept in its log), or to the server and topic in the body.
     * The saved token only ever goes to the saved server. Null when there are neither.
     */
    async test(override?: Omit<NotifySettingsInput, "enabled">) {
      const saved = await channels.firstNtfy();
      if (!override) return saved ? answerOf(await deliveries.test(saved, testMessage(saved))) : null;
      const savedToken =
        saved && sameOrigin(override.url, String(saved.settings.url))
          ? (channels.secretsOf(saved).token as string | undefined)
          : undefined;
      const message = renderAlert(
        { type: "test", id: "test" },
        {
          language: "en",
          appUrl,
          stacks: [],
          vulnerabilities: { vulnerabilitySeverity: "critical", alertOnFirstScan: false },
        },
      )!;
      const attempt = await sendNtfy(
        {
          settings: { url: override.url, topic: override.topic },
          secrets: { token: override.token ?? savedToken },
        },
        message,
        { timeoutMs: policy.timeoutMs, deliveryId: "test", now: () => clock.now() },
      );
      return answerOf(attempt);
    },

    /**
     * For tests: resolves once every alert under way has had its attempts, those still reading their
     * channels too (their deliveries are not under way yet).
     */
    async idle() {
      await Promise.all([...dispatching]);
      await deliveries.idle();
    },

    /** Alerts under way get a moment to go out; what is still waiting then is recorded as abandoned. */
    async close() {
      clearInterval(abandonTimer);
      await updates.close();
      await Promise.race([
        Promise.all([...dispatching]),
        new Promise((resolve) => setTimeout(resolve, CLOSING_MS).unref()),
      ]);
      await deliveries.close();
    },
  };
}

export type NotifyService = ReturnType<typeof createNotifyService>;

function sameOrigin(a: string, b: string): boolean {
  return URL.canParse(a) && URL.canParse(b) && new URL(a).origin === new URL(b).origin;
}
