import { type NtfyReceiver, startNtfyReceiver } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifySettings } from "../db/schema.ts";
import { createSecretBox } from "../platform/secret-box.ts";
import { databaseEnvironmentOf, onPostgres, openDatabaseOfDataDir } from "../testing/database.ts";
import { startTestBackend, TEST_AUTH_SECRET, type TestBackend } from "../testing/harness.ts";

const TOKEN = "tk_upgradeTokenCanary0123456789ab";

let ntfy: NtfyReceiver;
beforeAll(async () => {
  ntfy = await startNtfyReceiver({ token: TOKEN });
});
afterAll(async () => {
  await ntfy?.close();
});

/** A data directory as a Stackgate from before alert channels left it: its ntfy settings in their row. */
async function installBeforeChannels() {
  const first = await startTestBackend();
  await first.close({ keepData: true });
  const database = await openDatabaseOfDataDir(first.dataDir);
  await database.db.transaction((tx) =>
    tx.insert(notifySettings).values({
      id: 1,
      url: ntfy.url,
      topic: "deploys",
      sealedToken: createSecretBox(TEST_AUTH_SECRET).seal(TOKEN),
      enabled: true,
      vulnerabilityAlerts: true,
      vulnerabilitySeverity: "high",
      alertOnFirstScan: true,
      updatedAt: new Date(),
    }),
  );
  await database.close();
  return first.dataDir;
}

const channelsOf = async (app: TestBackend, cookie: string) =>
  (await app.request("/api/v0/notify/channels", { headers: { cookie } })).json.channels;

describe("upgrading from ntfy settings", () => {
  it("turns them into the first ntfy channel, token and choices included, once however often it starts", async () => {
    const dataDir = await installBeforeChannels();
    let app = await startTestBackend({ dataDir });
    let cookie = await app.signIn();
    const [channel, ...others] = await channelsOf(app, cookie);
    expect(others).toEqual([]);
    expect(channel).toMatchObject({
      name: "ntfy",
      kind: "ntfy",
      enabled: true,
      events: ["deploy.failed", "vulnerability.new"],
      stacks: ["*"],
      language: "en",
      vulnerabilitySeverity: "high",
      alertOnFirstScan: true,
      settings: { url: ntfy.url, topic: "deploys", tokenSet: true },
    });
    expect(
      (await app.request("/api/v0/deploy/credentials/notify", { headers: { cookie } })).json.settings,
    ).toEqual({
      url: ntfy.url,
      topic: "deploys",
      enabled: true,
      tokenSet: true,
      vulnerabilityAlerts: true,
      vulnerabilitySeverity: "high",
      alertOnFirstScan: true,
    });
    // The token still opens and goes to ntfy.
    const tested = await app.request(`/api/v0/notify/channels/${channel.id}/test`, {
      method: "POST",
      headers: { cookie },
    });
    expect(tested.json).toMatchObject({ delivered: true, status: 200 });
    expect(ntfy.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const [audited] = (
      await app.request("/api/v0/audit?limit=100", { headers: { cookie } })
    ).json.entries.filter((entry: { action: string }) => entry.action === "alerts.channel-created");
    expect(audited).toMatchObject({ actor: "Stackgate (upgrade)", target: "ntfy" });
    expect(JSON.stringify(audited)).not.toContain(TOKEN);
    await app.close({ keepData: true });

    app = await startTestBackend({ dataDir });
    cookie = await app.signIn();
    expect((await channelsOf(app, cookie)).map((one: { id: string }) => one.id)).toEqual([channel.id]);
    await app.close();
  });

  it.skipIf(!onPostgres())(
    "makes one channel when two backends start on the same database at once",
    async () => {
      const dataDir = await installBeforeChannels();
      const { DATABASE_URL } = databaseEnvironmentOf(dataDir);
      const [one, two] = await Promise.all([
        startTestBackend({ dataDir }),
        startTestBackend({ env: { DATABASE_URL: DATABASE_URL! } }),
      ]);
      try {
        const cookie = await one.signIn();
        expect(await channelsOf(one, cookie)).toHaveLength(1);
      } finally {
        await two.close();
        await one.close();
      }
    },
  );
});
