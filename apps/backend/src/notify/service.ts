import { eq } from "drizzle-orm";
import type { Actor, AuditService } from "../audit/service.ts";
import type { Database, Transaction } from "../db/database.ts";
import { notifySettings } from "../db/schema.ts";
import type { FinishedRun } from "../deploy/run.ts";
import type { Logger } from "../platform/logger.ts";
import type { SecretBox } from "../platform/secret-box.ts";
import type { Vulnerability } from "../scans/trivy-report.ts";
import { publishToNtfy } from "./ntfy-publisher.ts";
import { type AlertSeverity, newFindings, vulnerabilityAlert } from "./vulnerability-alert.ts";

const SETTINGS_ROW = 1;
const ALERT_TIMEOUT_MS = 5000;

export interface NotifySettingsInput {
  url: string;
  topic: string;
  /** Omitted: keep the saved token. Null or empty: remove it. */
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

export function createNotifyService({
  db,
  secretBox,
  logger,
  appUrl,
  alertTimeoutMs = ALERT_TIMEOUT_MS,
  audit,
}: {
  db: Database;
  secretBox: SecretBox;
  logger: Logger;
  appUrl: string;
  alertTimeoutMs?: number;
  audit: AuditService;
}) {
  type Settings = typeof notifySettings.$inferSelect;
  const load = async (from: Pick<Transaction, "select"> = db): Promise<Settings | undefined> =>
    (await from.select().from(notifySettings).where(eq(notifySettings.id, SETTINGS_ROW)))[0];
  const describe = (row: Settings) => ({
    url: row.url,
    topic: row.topic,
    enabled: row.enabled,
    tokenSet: row.sealedToken !== null,
    vulnerabilityAlerts: row.vulnerabilityAlerts,
    vulnerabilitySeverity: row.vulnerabilitySeverity,
    alertOnFirstScan: row.alertOnFirstScan,
  });
  const targetOf = (row: Settings) => ({
    url: row.url,
    topic: row.topic,
    token: row.sealedToken ? secretBox.open(row.sealedToken) : undefined,
  });

  return {
    async get() {
      const row = await load();
      return row ? describe(row) : null;
    },

    /**
     * A token saved for one server is never sent to another: saving another origin without a token
     * drops the saved one (the answer says `tokenSet: false`), so a server that needs no token just
     * works, and one that does asks for it with a clear 401 on the test.
     */
    async save(
      {
        url,
        topic,
        token,
        enabled = false,
        vulnerabilityAlerts,
        vulnerabilitySeverity,
        alertOnFirstScan,
      }: NotifySettingsInput,
      by: Actor,
    ) {
      const existing = await load();
      const keptToken = existing && sameOrigin(existing.url, url) ? existing.sealedToken : null;
      const sealedToken = token === undefined ? keptToken : token ? secretBox.seal(token) : null;
      const values = {
        url,
        topic,
        enabled,
        sealedToken,
        vulnerabilityAlerts: vulnerabilityAlerts ?? existing?.vulnerabilityAlerts ?? false,
        vulnerabilitySeverity: vulnerabilitySeverity ?? existing?.vulnerabilitySeverity ?? "critical",
        alertOnFirstScan: alertOnFirstScan ?? existing?.alertOnFirstScan ?? false,
        updatedAt: new Date(),
      };
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(notifySettings)
          .values({ id: SETTINGS_ROW, ...values })
          .onConflictDoUpdate({ target: notifySettings.id, set: values })
          .returning();
        const saved = describe(row!);
        // What was saved, as the API answers it: the token only as whether one is set.
        await audit.recordChange({ by, action: "alerts.saved", target: "alert settings", detail: saved }, tx);
        return saved;
      });
    },

    remove(by: Actor) {
      return db.transaction(async (tx) => {
        const removed = await tx
          .delete(notifySettings)
          .where(eq(notifySettings.id, SETTINGS_ROW))
          .returning({ id: notifySettings.id });
        if (removed.length > 0)
          await audit.recordChange({ by, action: "alerts.removed", target: "alert settings" }, tx);
        return removed.length > 0;
      });
    },

    /** Sends a test alert with the given settings, or the saved ones; null when there are neither. */
    async test(override?: NotifySettingsInput) {
      const saved = await load();
      if (!override && !saved) return null;
      // The saved token only ever goes to the saved server, never to another one given in the body.
      const savedToken =
        saved && override && sameOrigin(override.url, saved.url) ? targetOf(saved).token : undefined;
      const target = override
        ? { url: override.url, topic: override.topic, token: override.token ?? savedToken }
        : targetOf(saved!);
      const result = await publishToNtfy(
        target,
        {
          title: "Stackgate test alert",
          message: "If you can read this, failed deploys will reach this topic.",
          priority: 3,
          tags: ["white_check_mark", "stackgate"],
          click: appUrl,
        },
        { timeoutMs: alertTimeoutMs },
      );
      return result.ok
        ? {
            delivered: true,
            status: result.status,
            message: `ntfy accepted the message${result.id ? ` (id ${result.id})` : ""}`,
          }
        : { delivered: false, status: result.status ?? null, message: result.error };
    },

    /** Publishes one alert for a failed deploy when alerts are on. Never throws; a failure is only logged. */
    async deployFailed(run: FinishedRun) {
      const saved = await load().catch((error: unknown) => {
        logger.warn(
          { err: error, stack: run.stack },
          "failure alert not sent: its settings could not be read",
        );
      });
      if (!saved?.enabled) return;
      const result = await publishToNtfy(
        targetOf(saved),
        {
          title: `Deploy failed: ${run.action} of ${run.stack}`,
          message: `${run.actorName} ran '${run.action}' on '${run.stack}'. Komodo said: ${run.message}`,
          priority: 4,
          tags: ["rotating_light", "stackgate", run.stack],
          click: `${appUrl}/history`,
        },
        { timeoutMs: alertTimeoutMs },
      );
      if (!result.ok) logger.warn({ stack: run.stack, reason: result.error }, "failure alert not delivered");
    },

    /**
     * After a successful scan: one alert for the image when the scan found vulnerabilities at or
     * above the chosen severity that the previous successful scan did not have, and a stack uses
     * the image. Never throws; a failure is only logged.
     */
    async imageScanned({ image, previous, vulnerabilities, stacksUsing }: ScannedImage) {
      try {
        const saved = await load();
        if (!saved?.enabled || !saved.vulnerabilityAlerts) return;
        if (previous === null && !saved.alertOnFirstScan) return;
        const findings = newFindings(previous, vulnerabilities, saved.vulnerabilitySeverity);
        if (findings.length === 0) return;
        const stacks = await stacksUsing();
        if (stacks.length === 0) return;
        const result = await publishToNtfy(
          targetOf(saved),
          vulnerabilityAlert({ image, stacks, findings, appUrl }),
          { timeoutMs: alertTimeoutMs },
        );
        if (!result.ok) logger.warn({ image, reason: result.error }, "vulnerability alert not delivered");
        else logger.info({ image, newFindings: findings.length }, "vulnerability alert sent");
      } catch (error) {
        logger.warn({ err: error, image }, "vulnerability alert not sent");
      }
    },
  };
}

export type NotifyService = ReturnType<typeof createNotifyService>;

function sameOrigin(a: string, b: string): boolean {
  return URL.canParse(a) && URL.canParse(b) && new URL(a).origin === new URL(b).origin;
}
