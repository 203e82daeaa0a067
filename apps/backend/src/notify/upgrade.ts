import type { AlertEventName } from "@stackgate/contract";
import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { notifySettings } from "../db/schema.ts";
import type { Logger } from "../platform/logger.ts";
import type { SecretBox } from "../platform/secret-box.ts";
import { ChannelError, type ChannelStore } from "./channels.ts";

/** Transactions that read or write the first ntfy channel take this turn, on every backend. */
export const NTFY_TURN = "alerts.first-ntfy";

/** Stackgate itself, in the audit, for what an upgrade changed. */
export const UPGRADE_ACTOR = { id: null, name: "Stackgate (upgrade)" };

/**
 * At start: the ntfy settings of a Stackgate from before alert channels become the first ntfy
 * channel, in one transaction that also deletes them, so it happens once however often or on how
 * many backends it runs. The token stays sealed at rest throughout.
 */
export async function upgradeNtfySettings({
  db,
  channels,
  secretBox,
  logger,
}: {
  db: Database;
  channels: ChannelStore;
  secretBox: SecretBox;
  logger: Logger;
}) {
  await db.transaction(
    async (tx) => {
      const [old] = await tx.select().from(notifySettings).where(eq(notifySettings.id, 1));
      if (!old) return;
      let token: string | undefined;
      try {
        token = old.sealedToken ? secretBox.open(old.sealedToken) : undefined;
      } catch {
        logger.warn(
          "the saved ntfy token could not be opened (BETTER_AUTH_SECRET changed?); the channel has none",
        );
      }
      const events: AlertEventName[] = old.vulnerabilityAlerts
        ? ["deploy.failed", "vulnerability.new"]
        : ["deploy.failed"];
      const channel = await channels
        .create(
          {
            kind: "ntfy",
            name: "ntfy",
            enabled: old.enabled,
            events,
            stacks: ["*"],
            language: "en",
            vulnerabilitySeverity: old.vulnerabilitySeverity,
            alertOnFirstScan: old.alertOnFirstScan,
            settings: { url: old.url, topic: old.topic, ...(token ? { token } : {}) },
          },
          UPGRADE_ACTOR,
          tx,
        )
        .catch((error: unknown) => {
          // Settings that today's checks refuse (a URL with a password in it) stay as they were.
          if (!(error instanceof ChannelError)) throw error;
          logger.warn(
            { reason: error.message },
            "the saved ntfy alert settings could not become an alert channel",
          );
        });
      if (!channel) return;
      await tx.delete(notifySettings).where(eq(notifySettings.id, 1));
      logger.info({ channel: channel.id }, "the ntfy alert settings are now the alert channel 'ntfy'");
    },
    { turn: NTFY_TURN },
  );
}
