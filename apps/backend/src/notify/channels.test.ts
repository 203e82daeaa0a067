import { type NtfyReceiver, startNtfyReceiver } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBackend, type TestBackend } from "../testing/harness.ts";

const TOKEN = "tk_channelTokenCanary0123456789ab";
const SLACK_URL = "https://hooks.slack.example/services/T1/B2/slackCanarySecret";

let app: TestBackend;
let cookie: string;
let ntfy: NtfyReceiver;

beforeAll(async () => {
  ntfy = await startNtfyReceiver({ token: TOKEN });
  app = await startTestBackend();
  cookie = await app.signIn();
});
afterAll(async () => {
  await app?.close();
  await ntfy?.close();
});

const channels = "/api/v0/notify/channels";
const post = (json: unknown, headers: Record<string, string> = { cookie }) =>
  app.request(channels, { method: "POST", headers, json });
/** An ntfy channel for failed deploys, with a token: the channel as it is answered. */
const postNtfy = async (name: string, topic: string) =>
  (
    await post({
      name,
      kind: "ntfy",
      events: ["deploy.failed"],
      settings: { url: ntfy.url, topic, token: TOKEN },
    })
  ).json.channel;
const patch = (id: string, json: unknown) =>
  app.request(`${channels}/${id}`, { method: "PATCH", headers: { cookie }, json });
const audit = async (count: number) =>
  (await app.request(`/api/v0/audit?limit=${count}`, { headers: { cookie } })).json.entries as {
    action: string;
    target: string;
    detail: Record<string, unknown>;
  }[];

describe("adding a channel", () => {
  it("answers it without its secrets, each only as whether it is set, with defaults filled in", async () => {
    const created = await post({
      name: "On call",
      kind: "ntfy",
      events: ["deploy.failed", "update.available"],
      stacks: ["web-**", "api"],
      settings: { url: ntfy.url, topic: "oncall", token: TOKEN },
    });
    expect(created.status).toBe(200);
    expect(created.json.channel).toMatchObject({
      name: "On call",
      kind: "ntfy",
      enabled: true,
      events: ["deploy.failed", "update.available"],
      stacks: ["web-*", "api"],
      language: "en",
      vulnerabilitySeverity: "critical",
      alertOnFirstScan: false,
      settings: { url: ntfy.url, topic: "oncall", tokenSet: true },
      failing: false,
      lastDelivery: null,
    });
    const slack = await post({
      name: "Slack",
      kind: "slack",
      events: ["deploy.failed"],
      settings: { webhookUrl: SLACK_URL },
    });
    expect(slack.json.channel.settings).toEqual({ host: "hooks.slack.example", webhookUrlSet: true });
    const listed = (await app.request(channels, { headers: { cookie } })).json.channels;
    expect(listed.map((channel: { name: string }) => channel.name)).toEqual(["On call", "Slack"]);
    const [entry] = await audit(1);
    expect(entry).toMatchObject({
      action: "alerts.channel-created",
      target: "Slack",
      detail: { kind: "slack", settings: { webhookUrlSet: true, host: "hooks.slack.example" } },
    });
  });

  it.each([
    [
      { kind: "ntfy", name: "x", events: ["deploy.failed"], settings: { url: "http://n", topic: "docs" } },
      "settings.topic: topic is a name ntfy reserves",
    ],
    [
      { kind: "pager", name: "x", events: ["deploy.failed"], settings: {} },
      "kind must be one of ntfy, slack, discord, teams, telegram, gotify, email, webhook, apprise",
    ],
    [
      { kind: "slack", name: "x", events: ["deploy.exploded"], settings: { webhookUrl: SLACK_URL } },
      "events.0: events may list only",
    ],
    [
      { kind: "slack", name: "x", events: [], settings: { webhookUrl: SLACK_URL } },
      "events: events must name at least one event",
    ],
    [
      {
        kind: "slack",
        name: "x",
        events: ["deploy.failed", "deploy.failed"],
        settings: { webhookUrl: SLACK_URL },
      },
      "events: events must not repeat",
    ],
    [
      {
        kind: "slack",
        name: "x",
        events: ["deploy.failed"],
        stacks: ["web/*"],
        settings: { webhookUrl: SLACK_URL },
      },
      "stacks.0: a stack pattern may contain only",
    ],
    [
      { kind: "slack", name: "a\u202Eb", events: ["deploy.failed"], settings: { webhookUrl: SLACK_URL } },
      "name: name must not hold control, bidirectional or invisible characters",
    ],
    [
      {
        kind: "slack",
        name: "x",
        events: ["deploy.failed"],
        settings: { webhookUrl: "https://u:p@hooks.slack.example/x" },
      },
      "settings.webhookUrl: webhookUrl must not contain a user name or password",
    ],
    [
      { kind: "slack", name: "x", events: ["deploy.failed"], settings: { webhookUrl: "ftp://x" } },
      "settings.webhookUrl: webhookUrl must be an http:// or https:// URL",
    ],
    [
      {
        kind: "slack",
        name: "x",
        events: ["deploy.failed"],
        settings: { webhookUrl: SLACK_URL, channel: "#ops" },
      },
      "settings",
    ],
    [
      { kind: "telegram", name: "x", events: ["deploy.failed"], settings: { botToken: "nope", chatId: "1" } },
      "settings.botToken: botToken must look like",
    ],
    [
      {
        kind: "telegram",
        name: "x",
        events: ["deploy.failed"],
        settings: { botToken: "1:AAAAAAAAAAAAAAAAAAAAAAAA", chatId: "general" },
      },
      "settings.chatId:",
    ],
    [
      {
        kind: "gotify",
        name: "x",
        events: ["deploy.failed"],
        settings: { url: "http://g", token: "t", priority: 11 },
      },
      "settings.priority: priority must be a whole number from 0 to 10",
    ],
    [
      {
        kind: "email",
        name: "x",
        events: ["deploy.failed"],
        settings: { host: "smtp.x", security: "none", from: "a@b.co", to: ["d@e.fr"] },
      },
      "settings.security: security must be starttls or tls",
    ],
    [
      {
        kind: "email",
        name: "x",
        events: ["deploy.failed"],
        settings: { host: "smtp.x", security: "tls", from: "a@b.co", to: [] },
      },
      "settings.to: to must list at least one address",
    ],
    [
      {
        kind: "email",
        name: "x",
        events: ["deploy.failed"],
        settings: { host: "smtp.x", security: "tls", from: "a@b.co", to: ["d@e.fr"], username: "me" },
      },
      "settings.password: give the password that goes with the username",
    ],
    [
      {
        kind: "email",
        name: "x",
        events: ["deploy.failed"],
        settings: { host: "smtp x", security: "tls", from: "a@b.co", to: ["d@e.fr"] },
      },
      "settings.host: host must be a host name",
    ],
    [
      {
        kind: "webhook",
        name: "x",
        events: ["deploy.failed"],
        settings: { url: "http://h", secret: "whsec_c2hvcnQ=" },
      },
      "settings.secret: secret must hold 24 to 64 bytes",
    ],
    [
      {
        kind: "webhook",
        name: "x",
        events: ["deploy.failed"],
        settings: { url: "http://h", secret: `whsec_${"A".repeat(44)}`, headers: { "webhook-id": "x" } },
      },
      "headers: a header name must not be one Stackgate sets",
    ],
    [
      {
        kind: "webhook",
        name: "x",
        events: ["deploy.failed"],
        settings: {
          url: "http://h",
          secret: `whsec_${"A".repeat(44)}`,
          headers: { "X-A": "line\r\nInjected: 1" },
        },
      },
      "headers: a value must be printable ASCII on one line",
    ],
    [
      { kind: "apprise", name: "x", events: ["deploy.failed"], settings: { url: "http://a" } },
      "settings.key: give key (a configuration saved in Apprise API) or urls",
    ],
    [
      {
        kind: "apprise",
        name: "x",
        events: ["deploy.failed"],
        settings: { url: "http://a", key: "k", urls: "json://x" },
      },
      "settings.urls: give either key",
    ],
  ])("refuses %j with 400 naming the field", async (body, message) => {
    const before = (await app.request(channels, { headers: { cookie } })).json.channels.length;
    const refused = await post(body);
    expect(refused.status).toBe(400);
    expect(refused.json.message).toContain(message);
    expect((await app.request(channels, { headers: { cookie } })).json.channels).toHaveLength(before);
  });
});

describe("changing a channel", () => {
  it("changes only what is given, keeps secrets left out, and audits what changed", async () => {
    const channel = await postNtfy("Team", "team");
    const changed = await patch(channel.id, {
      enabled: false,
      events: ["deploy.failed", "deploy.succeeded"],
      settings: { topic: "team-2" },
    });
    expect(changed.status).toBe(200);
    expect(changed.json.channel).toMatchObject({
      enabled: false,
      events: ["deploy.failed", "deploy.succeeded"],
      settings: { url: ntfy.url, topic: "team-2", tokenSet: true },
    });
    const [entry] = await audit(1);
    expect(entry).toMatchObject({
      action: "alerts.channel-updated",
      target: "Team",
      detail: {
        changed: {
          enabled: { from: true, to: false },
          events: { from: ["deploy.failed"], to: ["deploy.failed", "deploy.succeeded"] },
          "settings.topic": { from: "team", to: "team-2" },
        },
      },
    });
    // The token still goes with the channel's alerts.
    expect(
      (await app.request(`${channels}/${channel.id}/test`, { method: "POST", headers: { cookie } })).json,
    ).toMatchObject({ delivered: true });
    expect(ntfy.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);

    const removed = await patch(channel.id, { settings: { token: null } });
    expect(removed.json.channel.settings.tokenSet).toBe(false);
    expect((await audit(1))[0]!.detail).toMatchObject({ secretsRemoved: ["token"] });
  });

  it("asks for the secret again when the address moves to another server, and keeps it on the same one", async () => {
    const channel = await postNtfy("Moves", "m");
    const moved = await patch(channel.id, { settings: { url: "https://ntfy.elsewhere.example" } });
    expect(moved.status).toBe(400);
    expect(moved.json.message).toBe(
      "settings.token: url changed, so give token again (or null for none): a secret never follows a changed address",
    );
    const samePlace = await patch(channel.id, { settings: { url: `${ntfy.url}/` } });
    expect(samePlace.status).toBe(200);
    expect(samePlace.json.channel.settings.tokenSet).toBe(true);
    const withNone = await patch(channel.id, {
      settings: { url: "https://ntfy.elsewhere.example", token: null },
    });
    expect(withNone.json.channel.settings).toMatchObject({
      url: "https://ntfy.elsewhere.example",
      tokenSet: false,
    });

    const webhook = (
      await post({
        name: "Hook",
        kind: "webhook",
        events: ["deploy.failed"],
        settings: {
          url: "http://hooks.example/a",
          secret: `whsec_${"B".repeat(44)}`,
          headers: { "X-Key": "k" },
        },
      })
    ).json.channel;
    const newUrl = await patch(webhook.id, { settings: { url: "http://other.example/b" } });
    expect(newUrl.json.message).toBe(
      "settings.secret: url changed, so give secret and headers again (or null for none): a secret never follows a changed address",
    );
  });

  it("refuses settings of another kind, and answers 404 for a channel that does not exist", async () => {
    const { channel } = (
      await post({ name: "K", kind: "slack", events: ["deploy.failed"], settings: { webhookUrl: SLACK_URL } })
    ).json;
    const wrong = await patch(channel.id, { settings: { topic: "x" } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.message).toBe("settings: a slack channel has no setting 'topic'");
    const kind = await patch(channel.id, { kind: "ntfy" });
    expect(kind.status).toBe(400);
    for (const [method, path] of [
      ["GET", `${channels}/nope`],
      ["PATCH", `${channels}/nope`],
      ["DELETE", `${channels}/nope`],
      ["POST", `${channels}/nope/test`],
      ["GET", `${channels}/nope/deliveries`],
    ] as const) {
      const answer = await app.request(path, {
        method,
        headers: { cookie },
        ...(method === "PATCH" ? { json: { enabled: true } } : {}),
      });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json.message).toBe("No alert channel has the id 'nope'");
    }
  });

  it("removes a channel with its log, in the audit", async () => {
    const { channel } = (
      await post({
        name: "Gone",
        kind: "slack",
        events: ["deploy.failed"],
        settings: { webhookUrl: SLACK_URL },
      })
    ).json;
    expect(
      (await app.request(`${channels}/${channel.id}`, { method: "DELETE", headers: { cookie } })).json,
    ).toEqual({ deleted: true });
    expect((await audit(1))[0]).toMatchObject({
      action: "alerts.channel-deleted",
      target: "Gone",
      detail: { id: channel.id, kind: "slack" },
    });
    expect((await app.request(`${channels}/${channel.id}`, { headers: { cookie } })).status).toBe(404);
  });
});

describe("who may manage channels", () => {
  it("admins only: a deployer gets 403 naming the role, an API key 403", async () => {
    await app.addUser("dee@example.test", "deployer-Password-1", "Dee");
    const admin = (await app.request("/api/v0/users", { headers: { cookie } })).json.users.find(
      (user: { email: string }) => user.email === "dee@example.test",
    );
    await app.request(`/api/v0/users/${admin.id}`, {
      method: "PATCH",
      headers: { cookie },
      json: { role: "deployer" },
    });
    const deployer = await app.signIn("dee@example.test", "deployer-Password-1");
    const asDeployer = await app.request(channels, { headers: { cookie: deployer } });
    expect(asDeployer.status).toBe(403);
    expect(asDeployer.json.message).toMatch(/deployer/);
    const { key } = await app.createApiKey(cookie, "ci");
    expect((await app.request(channels, { headers: { "x-api-key": key } })).status).toBe(403);
    expect(
      (
        await post(
          { name: "x", kind: "slack", events: ["deploy.failed"], settings: { webhookUrl: SLACK_URL } },
          { "x-api-key": key },
        )
      ).status,
    ).toBe(403);
  });
});

describe("the specification's ntfy endpoints", () => {
  it("act on the first ntfy channel: its settings, its token, its removal", async () => {
    const first = (await app.request(channels, { headers: { cookie } })).json.channels.find(
      (channel: { kind: string }) => channel.kind === "ntfy",
    );
    const settings = await app.request("/api/v0/deploy/credentials/notify", { headers: { cookie } });
    expect(settings.json.settings).toEqual({
      url: first.settings.url,
      topic: first.settings.topic,
      enabled: first.enabled,
      tokenSet: first.settings.tokenSet,
      vulnerabilityAlerts: false,
      vulnerabilitySeverity: "critical",
      alertOnFirstScan: false,
    });
    const saved = await app.request("/api/v0/deploy/credentials/notify", {
      method: "POST",
      headers: { cookie },
      json: { url: ntfy.url, topic: "legacy", token: TOKEN, enabled: true, vulnerabilityAlerts: true },
    });
    expect(saved.status).toBe(200);
    const after = (await app.request(`${channels}/${first.id}`, { headers: { cookie } })).json.channel;
    expect(after).toMatchObject({
      enabled: true,
      events: ["deploy.failed", "update.available", "vulnerability.new"],
      settings: { url: ntfy.url, topic: "legacy", tokenSet: true },
    });
    const others = (await app.request(channels, { headers: { cookie } })).json.channels.filter(
      (channel: { id: string; kind: string }) => channel.kind === "ntfy" && channel.id !== first.id,
    );
    expect(others.length).toBeGreaterThan(0);
    expect(
      await app.request("/api/v0/deploy/credentials/notify", { method: "DELETE", headers: { cookie } }),
    ).toMatchObject({ status: 200 });
    expect((await app.request(`${channels}/${first.id}`, { headers: { cookie } })).status).toBe(404);
    // The next ntfy channel is the first one now.
    expect(
      (await app.request("/api/v0/deploy/credentials/notify", { headers: { cookie } })).json.settings.topic,
    ).toBe(others[0].settings.topic);
  });
});

it("never lets a secret into a response, a log line or the audit", async () => {
  await post({
    name: "Leak check",
    kind: "slack",
    events: ["deploy.failed"],
    settings: { webhookUrl: SLACK_URL },
  });
  await postNtfy("Leak check 2", "l");
  await app.request(channels, { headers: { cookie } });
  const everything = JSON.stringify(await audit(100));
  for (const text of [...app.responseBodies, ...app.logLines, everything]) {
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("slackCanarySecret");
  }
});
