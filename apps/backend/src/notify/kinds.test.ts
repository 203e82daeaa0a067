import { type NtfyReceiver, startNtfyReceiver } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ORIGIN, startConnectedBackend, type TestBackend } from "../testing/harness.ts";
import { type Receiver, type ServiceName, startReceiver } from "./testing/receivers.ts";

// A reason with what each format must escape: markup, mentions, entities.
const REASON = 'Bind for 0.0.0.0:80 failed: <port> & "80" *taken* @everyone _x_';
const BOT_TOKEN = "123456789:AAHsecretBotTokenPartThatIsLong0123";
const GOTIFY_TOKEN = "AgotifyAppToken.42";
const APPRISE_URLS = "tgram://987654321:AAAppriseSecretUrlPart0123456789/-1001";

// biome-ignore lint/suspicious/noExplicitAny: each service's payload, read as its documentation lays it out
type Payload = any;

let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let app: TestBackend;
let cookie: string;
const receivers = {} as Record<Exclude<ServiceName, "webhook">, Receiver>;
let ntfy: NtfyReceiver;

beforeAll(async () => {
  world = await startConnectedBackend({
    komodo: { stacks: [{ name: "web" }, { name: "broken", faults: { failWith: REASON } }] },
    keyName: "nightly",
  });
  ({ app, cookie } = world);
  for (const service of ["slack", "discord", "teams", "gotify", "apprise"] as const)
    receivers[service] = await startReceiver(service, { token: GOTIFY_TOKEN });
  receivers.telegram = await startReceiver("telegram", { token: BOT_TOKEN, chatId: "-1001234567890" });
  ntfy = await startNtfyReceiver();
});
afterAll(async () => {
  await world?.close();
  await Promise.all(Object.values(receivers).map((receiver) => receiver.close()));
  await ntfy?.close();
});

const secrets = () => [
  BOT_TOKEN,
  GOTIFY_TOKEN,
  APPRISE_URLS,
  "/services/T000/B000/slackSecretPath",
  "discordWebhookToken",
  "sig=teamsSignature",
];

function settingsFor(kind: string): Record<string, unknown> {
  switch (kind) {
    case "slack":
      return { webhookUrl: `${receivers.slack.url}/services/T000/B000/slackSecretPath` };
    case "discord":
      return { webhookUrl: `${receivers.discord.url}/api/webhooks/1234/discordWebhookToken` };
    case "teams":
      return {
        webhookUrl: `${receivers.teams.url}/workflows/abc/triggers/manual/paths/invoke?sig=teamsSignature`,
      };
    case "telegram":
      return { apiUrl: receivers.telegram.url, botToken: BOT_TOKEN, chatId: "-1001234567890" };
    case "gotify":
      return { url: receivers.gotify.url, token: GOTIFY_TOKEN };
    case "apprise":
      return { url: receivers.apprise.url, urls: APPRISE_URLS };
    default:
      return { url: ntfy.url, topic: "deploys" };
  }
}

const createChannel = async (body: Record<string, unknown>) => {
  const created = await app.request("/api/v0/notify/channels", {
    method: "POST",
    headers: { cookie },
    json: body,
  });
  expect(created.status, created.text).toBe(200);
  return created.json.channel as { id: string; settings: Record<string, unknown> };
};
const removeChannel = (id: string) =>
  app.request(`/api/v0/notify/channels/${id}`, { method: "DELETE", headers: { cookie } });
const sendTest = async (id: string) =>
  (await app.request(`/api/v0/notify/channels/${id}/test`, { method: "POST", headers: { cookie } })).json;
const deployBroken = async () => {
  const answer = await app.request("/api/v0/deploy", {
    method: "POST",
    headers: { "x-api-key": world.key },
    json: { stack: "broken", action: "redeploy" },
  });
  expect(answer.status).toBe(502);
};

/** Each kind's alert for the failed deploy, as its receiver got it: what a person reads in it. */
const READ: Record<
  Exclude<ServiceName, "webhook">,
  (json: Payload) => { title: string; body: string; link: string }
> = {
  slack: (json) => ({
    title: json.blocks[0].text.text,
    body: `${json.blocks[1].text.text}\n${json.blocks[2].fields.map((field: { text: string }) => field.text).join("\n")}`,
    link: json.blocks[3].elements[0].url,
  }),
  discord: (json) => ({
    title: json.embeds[0].title,
    body: `${json.embeds[0].description}\n${json.embeds[0].fields.map((f: { name: string; value: string }) => `${f.name}: ${f.value}`).join("\n")}`,
    link: json.embeds[0].url,
  }),
  teams: (json) => {
    const card = json.attachments[0].content;
    return {
      title: card.body[0].text,
      body: card.body
        .slice(1)
        .map(
          (element: { text?: string; facts?: { title: string; value: string }[] }) =>
            element.text ?? element.facts!.map((fact) => `${fact.title}: ${fact.value}`).join("\n"),
        )
        .join("\n"),
      link: card.actions[0].url,
    };
  },
  telegram: (json) => ({
    title: /^<b>(.*?)<\/b>/.exec(json.text)![1]!,
    body: json.text.replace(/<[^>]+>/g, ""),
    link: /<a href="([^"]+)">/.exec(json.text)![1]!.replaceAll("&amp;", "&"),
  }),
  gotify: (json) => ({
    title: json.title,
    body: json.message,
    link: json.extras["client::notification"].click.url,
  }),
  apprise: (json) => ({
    title: json.title,
    body: json.body,
    link: /(http\S+\/runs\/\S*)/.exec(json.body)![1]!,
  }),
};

describe.each(["slack", "discord", "teams", "telegram", "gotify", "apprise"] as const)(
  "a %s channel",
  (kind) => {
    it("takes a test and a failed deploy's alert in the service's documented format, and says what the service answered", async () => {
      const receiver = receivers[kind];
      receiver.received.length = 0;
      const channel = await createChannel({
        name: `${kind} on call`,
        kind,
        events: ["deploy.failed"],
        settings: settingsFor(kind),
      });
      try {
        const tested = await sendTest(channel.id);
        expect(tested).toMatchObject({ delivered: true, status: kind === "teams" ? 202 : 200 });
        expect(receiver.received).toHaveLength(1);
        expect(receiver.received[0]!.problems).toEqual([]);

        await deployBroken();
        await expect.poll(() => receiver.received.length).toBe(2);
        const alert = receiver.received[1]!;
        expect(alert.problems).toEqual([]);
        const { title, body, link } = READ[kind](alert.json);
        expect(title).toBe("Deploy failed: redeploy of broken");
        expect(body).toContain("API Key: nightly");
        expect(body).toMatch(/Bind for 0\.0\.0\.0:80 failed/);
        expect(body).toMatch(/Outcome\W+failed/);
        // The run's page in the dashboard.
        expect(link).toMatch(new RegExp(`^${APP_ORIGIN}/runs/[0-9a-f-]{36}$`));

        const log = (
          await app.request(`/api/v0/notify/channels/${channel.id}/deliveries`, { headers: { cookie } })
        ).json;
        expect(log.deliveries.map((d: { event: string; status: string }) => [d.event, d.status])).toEqual([
          ["deploy.failed", "delivered"],
          ["test", "delivered"],
        ]);
      } finally {
        await removeChannel(channel.id);
      }
    });
  },
);

describe("what each format escapes", () => {
  it("keeps Komodo's reason as text: no markup, no mention, no broken entity", async () => {
    const kinds = ["slack", "discord", "telegram"] as const;
    const ids: string[] = [];
    for (const kind of kinds)
      ids.push(
        (await createChannel({ name: kind, kind, events: ["deploy.failed"], settings: settingsFor(kind) }))
          .id,
      );
    try {
      for (const kind of kinds) receivers[kind].received.length = 0;
      await deployBroken();
      await expect
        .poll(
          () =>
            receivers.telegram.received.length +
            receivers.slack.received.length +
            receivers.discord.received.length,
        )
        .toBe(3);
      expect(JSON.stringify(receivers.slack.received[0]!.json)).toContain("&lt;port&gt; &amp; ");
      const embed = (receivers.discord.received[0]!.json as Payload).embeds[0];
      expect(embed.description).toContain("\\*taken\\* @everyone \\_x\\_");
      expect((receivers.discord.received[0]!.json as Payload).allowed_mentions).toEqual({ parse: [] });
      expect((receivers.telegram.received[0]!.json as Payload).text).toContain(
        "&lt;port&gt; &amp; &quot;80&quot;",
      );
    } finally {
      for (const id of ids) await removeChannel(id);
    }
  });
});

describe("the answers a test reports", () => {
  it("are the service's own: a refused token, an unknown chat, a 500", async () => {
    const gotify = await createChannel({
      name: "gotify wrong token",
      kind: "gotify",
      events: ["deploy.failed"],
      settings: { url: receivers.gotify.url, token: "WrongToken" },
    });
    const telegram = await createChannel({
      name: "telegram wrong chat",
      kind: "telegram",
      events: ["deploy.failed"],
      settings: { ...settingsFor("telegram"), chatId: "-42" },
    });
    const slack = await createChannel({
      name: "slack down",
      kind: "slack",
      events: ["deploy.failed"],
      settings: settingsFor("slack"),
    });
    try {
      expect(await sendTest(gotify.id)).toEqual({
        delivered: false,
        status: 401,
        message:
          "Gotify answered 401 you need to provide a valid access token or user credentials to access this api",
      });
      expect(await sendTest(telegram.id)).toEqual({
        delivered: false,
        status: 400,
        message: "Telegram answered 400 Bad Request: chat not found",
      });
      receivers.slack.script({ status: 500, body: "internal_error" });
      expect(await sendTest(slack.id)).toEqual({
        delivered: false,
        status: 500,
        message: "Slack answered 500 internal_error",
      });
    } finally {
      for (const { id } of [gotify, telegram, slack]) await removeChannel(id);
    }
  });
});

describe("languages", () => {
  it("writes a Spanish channel's alert in Spanish", async () => {
    const channel = await createChannel({
      name: "guardia",
      kind: "gotify",
      language: "es",
      events: ["deploy.failed"],
      settings: settingsFor("gotify"),
    });
    try {
      receivers.gotify.received.length = 0;
      await deployBroken();
      await expect.poll(() => receivers.gotify.received.length).toBe(1);
      const { title, body } = READ.gotify(receivers.gotify.received[0]!.json);
      expect(title).toBe("Falló el despliegue: redeploy de broken");
      expect(body).toContain(
        "API Key: nightly ejecutó 'redeploy' en 'broken'. Komodo dijo: DeployStack failed: Bind for",
      );
      expect(body).toContain("Resultado: fallido");
      expect(body).toMatch(new RegExp(`Abrir en Stackgate: ${APP_ORIGIN}/runs/[0-9a-f-]{36}`));
    } finally {
      await removeChannel(channel.id);
    }
  });
});

describe("Apprise with a saved configuration", () => {
  it("notifies /notify/{key} with its tags", async () => {
    const channel = await createChannel({
      name: "apprise key",
      kind: "apprise",
      events: ["deploy.failed"],
      settings: { url: receivers.apprise.url, key: "stackgate", tags: ["devops", "oncall critical"] },
    });
    try {
      receivers.apprise.received.length = 0;
      expect(await sendTest(channel.id)).toMatchObject({ delivered: true, status: 200 });
      const [request] = receivers.apprise.received;
      expect(request!.problems).toEqual([]);
      expect(request!.url).toBe("/notify/stackgate");
      expect(request!.json).toMatchObject({ tag: "devops,oncall critical", type: "info", format: "text" });
    } finally {
      await removeChannel(channel.id);
    }
  });
});

it("never lets a token, webhook URL or Apprise URL into a response or a log line", async () => {
  // Every kind once, in this test, so that it checks something when run alone.
  for (const kind of ["slack", "discord", "teams", "telegram", "gotify", "apprise"] as const) {
    const channel = await createChannel({
      name: kind,
      kind,
      events: ["deploy.failed"],
      settings: settingsFor(kind),
    });
    await app.request(`/api/v0/notify/channels/${channel.id}`, { headers: { cookie } });
    await sendTest(channel.id);
    await removeChannel(channel.id);
  }
  await app.request("/api/v0/notify/channels", { headers: { cookie } });
  for (const text of [...app.responseBodies, ...app.logLines])
    for (const secret of secrets()) expect(text).not.toContain(secret);
});
