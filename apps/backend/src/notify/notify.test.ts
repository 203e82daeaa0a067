import { type NtfyReceiver, startNtfyReceiver } from "@stackgate/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startConnectedBackend, type TestBackend } from "../testing/harness.ts";

const TOKEN = "tk_canarytoken0123456789abcdefgh";

let ntfy: NtfyReceiver;
let app: TestBackend;
let cookie: string;
let key: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ntfy = await startNtfyReceiver({ token: TOKEN });
  ({ app, cookie, key, close } = await startConnectedBackend({
    komodo: {
      stacks: [
        { name: "web" },
        { name: "broken", faults: { failWith: "Bind for 0.0.0.0:80 failed: port is already allocated" } },
      ],
    },
    keyName: "nightly",
    // A slow ntfy is given up on after 1 s instead of the default 5 s.
    env: { NTFY_TIMEOUT_SECONDS: "1" },
  }));
});
afterAll(async () => {
  await ntfy.close();
  await close();
});
beforeEach(() => {
  ntfy.setMode("ok");
  ntfy.published.length = 0;
});

const settingsUrl = "/api/v0/deploy/credentials/notify";
const saveSettings = (json: unknown) =>
  app.request(settingsUrl, { method: "POST", headers: { cookie }, json });
const deploy = (stack: string, headers: Record<string, string> = { cookie }) =>
  app.request("/api/v0/deploy", { method: "POST", headers, json: { stack, action: "redeploy" } });

describe("alert settings", () => {
  it("keeps the token write-only: saved, kept on a save without it, removed with null", async () => {
    expect((await app.request(settingsUrl, { headers: { cookie } })).json).toEqual({ settings: null });
    const saved = await saveSettings({ url: ntfy.url, topic: "deploys", token: TOKEN, enabled: true });
    expect(saved.json.settings).toEqual({
      url: ntfy.url,
      topic: "deploys",
      enabled: true,
      tokenSet: true,
      vulnerabilityAlerts: false,
      vulnerabilitySeverity: "critical",
      alertOnFirstScan: false,
    });
    await saveSettings({ url: ntfy.url, topic: "deploys", enabled: true });
    expect((await app.request(settingsUrl, { headers: { cookie } })).json.settings.tokenSet).toBe(true);
    await saveSettings({ url: ntfy.url, topic: "deploys", token: null, enabled: false });
    expect((await app.request(settingsUrl, { headers: { cookie } })).json.settings.tokenSet).toBe(false);
    expect((await app.request(settingsUrl, { method: "DELETE", headers: { cookie } })).json).toEqual({
      deleted: true,
    });
    expect((await app.request(settingsUrl, { headers: { cookie } })).json).toEqual({ settings: null });
  });

  it.each([
    [{ url: "ntfy.example", topic: "deploys", enabled: true }, /url/],
    [{ url: "http://ntfy.example", topic: "has space", enabled: true }, /topic/],
    [{ url: "http://ntfy.example", topic: "x".repeat(65), enabled: true }, /topic/],
    [{ url: "http://ntfy.example", topic: "docs", enabled: true }, /topic/],
    [{ url: "http://ntfy.example", topic: "deploys" }, /enabled/],
    [{ url: "http://ntfy.example", topic: "deploys", enabled: true, token: "a b" }, /token/],
  ])("refuses %j with 400 and stores nothing", async (body, message) => {
    const response = await saveSettings(body);
    expect(response.status).toBe(400);
    expect(response.json.message).toMatch(message);
    expect((await app.request(settingsUrl, { headers: { cookie } })).json).toEqual({ settings: null });
  });
});

describe("failure alerts", () => {
  it("publishes one alert for a failed deploy when enabled, naming stack, action, actor and reason", async () => {
    await saveSettings({ url: ntfy.url, topic: "deploys", token: TOKEN, enabled: true });
    expect((await deploy("web")).status).toBe(200);
    expect((await deploy("broken", { "x-api-key": key })).status).toBe(502);
    await expect.poll(() => ntfy.published.length).toBe(1);
    const [alert] = ntfy.published;
    expect(alert!.topic).toBe("deploys");
    expect(alert!.title).toContain("broken");
    expect(alert!.title).toContain("redeploy");
    expect(alert!.message).toContain("API Key: nightly");
    expect(alert!.message).toContain("port is already allocated");
    expect(alert!.priority).toBe(4);
    expect(alert!.tags).toContain("rotating_light");
    expect(alert!.request.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("publishes nothing when alerts are disabled", async () => {
    await saveSettings({ url: ntfy.url, topic: "deploys", enabled: false });
    expect((await deploy("broken")).status).toBe(502);
    // An alert for a later failure arrives alone: none was sent for the one above.
    await saveSettings({ url: ntfy.url, topic: "deploys", enabled: true });
    expect((await deploy("broken", { "x-api-key": key })).status).toBe(502);
    await expect.poll(() => ntfy.published.length).toBe(1);
    expect(ntfy.published[0]!.message).toContain("API Key: nightly");
  });

  it("never delays the deploy's 502 for a slow ntfy, and abandons the alert at NTFY_TIMEOUT_SECONDS", async () => {
    await saveSettings({ url: ntfy.url, topic: "deploys", enabled: true });
    ntfy.setMode("slow", { slowMs: 10_000 });
    const abandoned = () => app.logLines.filter((line) => line.includes("failure alert not delivered"));
    const before = abandoned().length;
    expect((await deploy("broken")).status).toBe(502);
    // The deploy was answered while its alert was still waiting for ntfy.
    expect(abandoned()).toHaveLength(before);
    await expect.poll(() => abandoned().length, { timeout: 5000 }).toBe(before + 1);
    expect(abandoned().at(-1)).toContain("ntfy did not answer within 1 s");
  });
});

describe("test alert", () => {
  it("sends with the saved settings and says what ntfy answered", async () => {
    await saveSettings({ url: ntfy.url, topic: "deploys", token: TOKEN, enabled: false });
    const response = await app.request(`${settingsUrl}/test`, { method: "POST", headers: { cookie } });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ delivered: true, status: 200 });
    expect(response.json.message).toMatch(/ntfy accepted the message \(id \w{12}\)/);
    expect(ntfy.published.at(-1)!.title).toBe("Stackgate test alert");
  });

  it("sends with the settings in the body, and reports ntfy's refusal", async () => {
    const response = await app.request(`${settingsUrl}/test`, {
      method: "POST",
      headers: { cookie },
      json: { url: ntfy.url, topic: "other", token: "tk_wrongwrongwrongwrongwrongwrong" },
    });
    expect(response.json).toMatchObject({ delivered: false, status: 401 });
    expect(response.json.message).toMatch(/401/);
  });

  it("sends the saved token only to the saved server", async () => {
    await saveSettings({ url: ntfy.url, topic: "deploys", token: TOKEN, enabled: false });
    const elsewhere = await startNtfyReceiver();
    try {
      await app.request(`${settingsUrl}/test`, {
        method: "POST",
        headers: { cookie },
        json: { url: elsewhere.url, topic: "deploys" },
      });
      expect(elsewhere.requests).toHaveLength(1);
      expect(elsewhere.requests[0]!.headers.authorization).toBeUndefined();
      await app.request(`${settingsUrl}/test`, {
        method: "POST",
        headers: { cookie },
        json: { url: ntfy.url, topic: "x" },
      });
      expect(ntfy.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    } finally {
      await elsewhere.close();
    }
  });

  it.each([
    ["an empty JSON object", { "content-type": "application/json" }, "{}"],
    ["JSON null", { "content-type": "application/json" }, "null"],
    ["an empty form (curl -d '')", { "content-type": "application/x-www-form-urlencoded" }, ""],
  ])("tests the saved settings when the body is %s", async (_, headers, body) => {
    await saveSettings({ url: ntfy.url, topic: "deploys", token: TOKEN, enabled: false });
    const response = await app.request(`${settingsUrl}/test`, {
      method: "POST",
      headers: { cookie, ...headers },
      body,
    });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ delivered: true, status: 200 });
    expect(ntfy.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("drops the saved token when the settings move to another server without one", async () => {
    await saveSettings({ url: ntfy.url, topic: "deploys", token: TOKEN, enabled: true });
    const elsewhere = await startNtfyReceiver();
    try {
      const moved = await saveSettings({ url: elsewhere.url, topic: "deploys", enabled: true });
      expect(moved.json.settings).toMatchObject({ url: elsewhere.url, tokenSet: false });
      const tested = await app.request(`${settingsUrl}/test`, { method: "POST", headers: { cookie } });
      expect(tested.json).toMatchObject({ delivered: true });
      expect(elsewhere.requests).toHaveLength(1);
      expect(elsewhere.requests[0]!.headers.authorization).toBeUndefined();
      expect((await deploy("broken")).status).toBe(502);
      await expect.poll(() => elsewhere.published.length).toBe(2);
      expect(elsewhere.requests[1]!.headers.authorization).toBeUndefined();

      // Coming back does not bring the dropped token back.
      const back = await saveSettings({ url: ntfy.url, topic: "deploys", enabled: true });
      expect(back.json.settings.tokenSet).toBe(false);
      // The same server under another path keeps it.
      await saveSettings({ url: ntfy.url, topic: "deploys", token: TOKEN, enabled: true });
      const samePlace = await saveSettings({ url: `${ntfy.url}/`, topic: "deploys", enabled: true });
      expect(samePlace.json.settings.tokenSet).toBe(true);
    } finally {
      await elsewhere.close();
    }
  });

  it("shows a hostile server's refusal clean and short, and stops reading an endless answer", async () => {
    const hostile = await startNtfyReceiver({ mode: "hostile" });
    try {
      const refused = await app.request(`${settingsUrl}/test`, {
        method: "POST",
        headers: { cookie },
        json: { url: hostile.url, topic: "deploys" },
      });
      expect(refused.json).toMatchObject({ delivered: false, status: 400 });
      expect(refused.json.message).toMatch(/^ntfy answered 400 ERROR {2}deploy of gnp\.exe failed: A+…$/);
      expect(refused.json.message.length).toBeLessThan(250);

      hostile.setMode("flood");
      const flooded = await app.request(`${settingsUrl}/test`, {
        method: "POST",
        headers: { cookie },
        json: { url: hostile.url, topic: "deploys" },
      });
      expect(flooded.json).toEqual({
        delivered: false,
        status: 200,
        message: `the server at ${hostile.url} answered 200 with more than 64 KiB, which is not like ntfy`,
      });
    } finally {
      await hostile.close();
    }
  });

  it("answers 404 when nothing is saved and nothing is given", async () => {
    await app.request(settingsUrl, { method: "DELETE", headers: { cookie } });
    expect((await app.request(`${settingsUrl}/test`, { method: "POST", headers: { cookie } })).status).toBe(
      404,
    );
  });

  it("never lets the token into a response or a log line", async () => {
    // Everything that handles the token, in this test, so that it checks something when run alone.
    await saveSettings({ url: ntfy.url, topic: "deploys", token: TOKEN, enabled: true });
    await app.request(settingsUrl, { headers: { cookie } });
    await app.request(`${settingsUrl}/test`, { method: "POST", headers: { cookie } });
    expect((await deploy("broken")).status).toBe(502);
    // The test alert and the failure alert, both sent with the token.
    await expect.poll(() => ntfy.published.length).toBe(2);
    expect(ntfy.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(app.responseBodies.length).toBeGreaterThan(0);
    for (const text of [...app.responseBodies, ...app.logLines]) expect(text).not.toContain(TOKEN);
  });
});
