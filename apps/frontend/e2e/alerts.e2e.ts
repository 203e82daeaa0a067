/**
 * Settings › Alerts against the real app: an admin adds an ntfy channel and hears a failed deploy on
 * it; adds a signed webhook whose test a real receiver gets and verifies; the form showing only the
 * chosen kind's fields, each with its help; secrets that are only ever named (set, replaced, removed,
 * asked again when the address moves); a test reporting the service's own answer; the delivery log;
 * a failing channel; removal with confirmation; the keyboard; both languages; and axe at a laptop's
 * and a phone's width in both themes.
 */
import { createHmac } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
// The backend's stand-in for a webhook receiver: a real HTTP server that records what it gets.
import { type Received, type Receiver, startReceiver } from "../../backend/src/notify/testing/receivers.ts";
import { axeViolations, describeViolations } from "./axe.ts";
import { hydrated, type OpenPageOptions, saveScreenshot, startBrowser, type TestBrowser } from "./browser.ts";
import { callAsAdmin, connectKomodo, createApiKey, deployWithKey } from "./komodo-setup.ts";
import { endTestsOf, overflowing, type Scenario, startScenario } from "./scenario.ts";

const NTFY_TOKEN = "tk_e2e0alerts0token00abcdefghijk";
const HOOK_PATH = "/hooks/e2e-path-that-is-write-only";
const HOOK_TOKEN = "Bearer e2e-hook-header-token";

let scenario: Scenario;
let browser: TestBrowser;
let apiKey: string;
let webhook: Receiver;

beforeAll(async () => {
  [scenario, browser, webhook] = await Promise.all([
    startScenario({ ntfyToken: NTFY_TOKEN }),
    startBrowser(),
    startReceiver("webhook"),
  ]);
  await connectKomodo(scenario.stackgate, scenario.komodo);
  apiKey = await createApiKey(scenario.stackgate, "release");
});
afterAll(() => webhook?.close());
beforeEach(() => {
  webhook.received.length = 0;
});

endTestsOf(() => ({ browser, scenario }));

async function openAlerts(options: Partial<OpenPageOptions> = {}) {
  const page = await browser.openPage({
    baseUrl: scenario.stackgate.baseUrl,
    signedInTo: scenario.stackgate,
    ...options,
  });
  await page.goto(`${scenario.stackgate.baseUrl}/settings/alerts`);
  await hydrated(page);
  return page;
}

const channels = (page: Page) => page.getByRole("region", { name: "Alert channels" });
const form = (page: Page, name = "New channel") => page.getByRole("form", { name });
/** Waits for a toast (the same one may still show from a moment before). */
const toast = (page: Page, text: string) =>
  page.getByRole("region", { name: "Notifications" }).getByText(text).last().waitFor();
const rowOf = (page: Page, name: string) => channels(page).getByRole("row").filter({ hasText: name });

/** Waits for the answer to a channel's test (`delivered` or `not delivered`), and says its whole text. */
async function testAnswer(page: Page, name: string, outcome: "delivered" | "not delivered") {
  const answer = channels(page)
    .getByRole("status")
    .filter({ hasText: `Test ${outcome} through ${name}` });
  await answer.waitFor();
  return (await answer.textContent()) ?? "";
}

/** Sends a channel's test from its row, once an earlier answer is dismissed, and says the new answer. */
async function sendTest(page: Page, name: string, outcome: "delivered" | "not delivered") {
  const earlier = channels(page).getByRole("button", { name: "Dismiss" });
  if ((await earlier.count()) > 0) await earlier.click();
  await channels(page)
    .getByRole("button", { name: `Send test through ${name}` })
    .click();
  return testAnswer(page, name, outcome);
}

/** The name of what has the keyboard: its aria-label, or its text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    return {
      tag: element?.tagName.toLowerCase(),
      name: element?.getAttribute("aria-label") ?? element?.textContent?.trim() ?? "",
    };
  });
const focusedName = async (page: Page) => (await focused(page)).name;
async function tabTo(page: Page, name: string) {
  for (let press = 0; press < 60; press++) {
    if ((await focusedName(page)) === name) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${name}`);
}

/** The settings a kind asks for: each control's label and its help (what describes it), in order. */
const whereItGoes = (page: Page) =>
  form(page)
    .getByRole("group", { name: "Where it goes" })
    .locator("input, select, textarea")
    .evaluateAll((controls) =>
      controls
        .filter((control) => control.checkVisibility())
        .map((control) => ({
          label: (control as HTMLInputElement).labels?.[0]?.textContent?.trim() ?? "",
          help: (control.getAttribute("aria-describedby") ?? "")
            .split(" ")
            .map((id) => document.getElementById(id)?.textContent?.trim() ?? "")
            .join(" ")
            .trim(),
        })),
    );

/** Whether a webhook request carries a Standard Webhooks signature made with `secret`. */
function signedWith(secret: string, request: Received): boolean {
  const {
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": signatures,
  } = request.headers;
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${request.body}`).digest("base64");
  return String(signatures).split(" ").includes(`v1,${expected}`);
}

const KIND_SETTINGS: Record<string, { labels: string[]; help: string }> = {
  ntfy: { labels: ["ntfy server", "Topic", "Access token"], help: "https://ntfy.sh" },
  slack: { labels: ["Webhook URL"], help: "Incoming Webhooks" },
  discord: { labels: ["Webhook URL"], help: "Integrations › Webhooks" },
  teams: { labels: ["Workflow URL"], help: "Workflows" },
  telegram: { labels: ["Bot token", "Chat id", "Bot API server"], help: "@BotFather" },
  gotify: { labels: ["Gotify server", "Application token", "Priority"], help: "Apps › Create Application" },
  email: {
    labels: ["SMTP server", "Security", "Port", "User name", "Password", "From", "To"],
    help: "STARTTLS",
  },
  webhook: { labels: ["URL", "Signing secret", "Extra headers"], help: "Standard Webhooks" },
  apprise: {
    labels: ["Apprise API server", "Configuration key", "Tags", "Apprise URLs"],
    help: "Apprise API",
  },
};

describe("adding a channel", () => {
  test("shows only the chosen kind's fields, each with help on where to find it", async () => {
    const page = await openAlerts();
    await channels(page).getByText("No alert channels yet").waitFor();
    await channels(page).getByRole("button", { name: "Add a channel" }).first().click();
    const kind = form(page).getByLabel("Kind");
    const kinds = await kind
      .locator("option")
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    expect(kinds.sort()).toEqual(Object.keys(KIND_SETTINGS).sort());
    for (const [name, { labels, help }] of Object.entries(KIND_SETTINGS)) {
      await kind.selectOption(name);
      const fields = await whereItGoes(page);
      expect(
        fields.map((field) => field.label),
        name,
      ).toEqual(labels);
      for (const field of fields) expect(field.help, `${name}: ${field.label}`).not.toBe("");
      expect(fields.map((field) => field.help).join(" "), name).toContain(help);
    }

    await kind.selectOption("webhook");
    await form(page).getByRole("button", { name: "Generate" }).click();
    await expect(form(page).getByLabel("Signing secret").inputValue()).resolves.toMatch(
      /^whsec_[A-Za-z0-9+/]{43}=$/,
    );
    await form(page).getByRole("button", { name: "Cancel" }).click();
    await form(page).waitFor({ state: "detached" });
    // The keyboard goes back to the button that opened the form.
    await expect.poll(() => focusedName(page)).toBe("Add a channel");
  });

  test("an ntfy channel, in under a minute: saved with a write-only token, tested, and a failed deploy reaching it", async () => {
    const page = await openAlerts();
    await channels(page).getByRole("button", { name: "Add a channel" }).first().click();
    await form(page).getByLabel("Kind").selectOption("ntfy");
    await form(page).getByLabel("Name").fill("On call");
    await form(page).getByLabel("ntfy server").fill(scenario.ntfy.url);
    await form(page).getByLabel("Topic").fill("docs");
    await form(page).getByLabel("Access token").fill(NTFY_TOKEN);
    await form(page).getByRole("button", { name: "Add channel" }).click();
    await form(page)
      .getByRole("alert")
      .filter({ hasText: "settings.topic: topic is a name ntfy reserves" })
      .waitFor();
    // The token left the page with the request.
    await expect(form(page).getByLabel("Access token").inputValue()).resolves.toBe("");

    await form(page).getByLabel("Topic").fill("stackgate-alerts");
    await form(page).getByLabel("Access token").fill(NTFY_TOKEN);
    await form(page).getByRole("button", { name: "Add channel" }).click();
    await toast(page, "Channel “On call” added");
    const row = rowOf(page, "On call");
    await row.getByText("On", { exact: true }).waitFor();
    await row.getByText("None yet").waitFor();
    expect(await page.content()).not.toContain(NTFY_TOKEN);
    // A new channel's next step is its test: the keyboard is there.
    await expect.poll(() => focusedName(page)).toBe("Send test through On call");

    expect(await sendTest(page, "On call", "delivered")).toMatch(
      /The service answered 200: ntfy accepted the message \(id \w+\)/,
    );
    expect(scenario.ntfy.published.at(-1)).toMatchObject({
      topic: "stackgate-alerts",
      title: "Stackgate test alert",
    });
    expect(scenario.ntfy.requests.at(-1)?.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);
    await row.getByText("Delivered", { exact: true }).waitFor();

    expect((await deployWithKey(scenario.stackgate, apiKey, "worker", "redeploy")).status).toBe(502);
    await expect.poll(() => scenario.ntfy.published.at(-1)?.title).toBe("Deploy failed: redeploy of worker");

    await row.getByRole("button", { name: "Deliveries of On call" }).click();
    const log = page.getByRole("list", { name: "Deliveries of On call" });
    await log.getByText("Deploy failed", { exact: true }).waitFor();
    await log.getByText("Deploy failed: redeploy of worker").waitFor();
    await expect(log.getByRole("listitem").count()).resolves.toBe(2);
    await saveScreenshot(page, "alerts-log", "light");
  });

  test("a signed webhook: its generated secret signs a test that a real receiver gets; its secrets are replaced and removed, never shown", async () => {
    const page = await openAlerts();
    await channels(page).getByRole("button", { name: "Add a channel" }).click();
    const add = form(page);
    await add.getByLabel("Kind").selectOption("webhook");
    await add.getByLabel("Name").fill("Automation");
    await add.getByLabel("URL", { exact: true }).fill(`${webhook.url}${HOOK_PATH}`);
    await add.getByRole("button", { name: "Generate" }).click();
    const secret = await add.getByLabel("Signing secret").inputValue();
    await add.getByLabel("Extra headers").fill(`Authorization: ${HOOK_TOKEN}\nX-Env: e2e`);
    await add.getByRole("button", { name: "Add channel" }).click();
    await toast(page, "Channel “Automation” added");

    // By keyboard from here: the focus waits on the new channel's test.
    await expect.poll(() => focusedName(page)).toBe("Send test through Automation");
    await page.keyboard.press("Enter");
    expect(await testAnswer(page, "Automation", "delivered")).toContain(
      "The service answered 204: The webhook accepted the message",
    );
    expect(webhook.received).toHaveLength(1);
    const [request] = webhook.received;
    expect(request!.url).toBe(HOOK_PATH);
    expect(request!.problems).toEqual([]);
    expect(request!.headers.authorization).toBe(HOOK_TOKEN);
    expect(request!.headers["x-env"]).toBe("e2e");
    expect(signedWith(secret, request!)).toBe(true);
    expect(request!.json).toMatchObject({ type: "test", data: { title: "Stackgate test alert" } });
    for (const secretText of [secret, HOOK_PATH, HOOK_TOKEN])
      expect(await page.content()).not.toContain(secretText);

    // Saved secrets are named, never shown: the address by its host, the headers by their names.
    await rowOf(page, "Automation").getByRole("button", { name: "Edit Automation" }).click();
    const edit = form(page, "Edit “Automation”");
    await edit.getByText(`Saved, for ${new URL(webhook.url).host}`).waitFor();
    await edit.getByText("Saved: Authorization, X-Env").waitFor();
    expect(await edit.getByRole("button", { name: "Remove Signing secret" }).count()).toBe(0);
    await edit.getByRole("button", { name: "Remove Extra headers" }).click();
    await edit.getByText("Removed when you save.").waitFor();
    await edit.getByRole("button", { name: "Replace Signing secret" }).click();
    await edit.getByRole("button", { name: "Generate" }).click();
    const newSecret = await edit.getByLabel("Signing secret").inputValue();
    expect(newSecret).not.toBe(secret);
    await edit.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Channel “Automation” saved");
    await expect.poll(() => focusedName(page)).toBe("Edit Automation");
    const { body } = await callAsAdmin(scenario.stackgate, "GET", "/api/v0/notify/channels");
    expect(body.channels.find((channel: { name: string }) => channel.name === "Automation")).toMatchObject({
      kind: "webhook",
      settings: { urlSet: true, secretSet: true, headerNames: [] },
    });

    await sendTest(page, "Automation", "delivered");
    expect(webhook.received).toHaveLength(2);
    const replaced = webhook.received[1]!;
    expect(replaced.headers.authorization).toBeUndefined();
    expect(signedWith(newSecret, replaced)).toBe(true);
    expect(signedWith(secret, replaced)).toBe(false);
    // Dismissing the answer gives the keyboard back to the test button.
    await channels(page).getByRole("button", { name: "Dismiss" }).click();
    await expect.poll(() => focusedName(page)).toBe("Send test through Automation");

    // A new address asks for the signing secret again: it never follows a moved address.
    await rowOf(page, "Automation").getByRole("button", { name: "Edit Automation" }).click();
    await edit.getByRole("button", { name: "Replace URL" }).click();
    await edit.getByLabel("URL", { exact: true }).fill("https://hooks.elsewhere.example/in");
    await edit.getByText("The address changed: enter the saved secrets again").waitFor();
    await expect(edit.getByLabel("Signing secret").inputValue()).resolves.toBe("");
    await expect(
      edit.getByLabel("Signing secret").evaluate((input) => (input as HTMLInputElement).required),
    ).resolves.toBe(true);
    await edit.getByRole("button", { name: "Cancel" }).click();
    await edit.waitFor({ state: "detached" });
    await expect.poll(() => focusedName(page)).toBe("Edit Automation");
  });

  test("a refused test shows the service's answer; a moved address asks for the token again; a token is replaced and removed", async () => {
    const page = await openAlerts();
    const row = rowOf(page, "On call");
    scenario.ntfy.setMode("forbidden");
    expect(await sendTest(page, "On call", "not delivered")).toContain(
      "The service answered 403: ntfy answered 403 forbidden",
    );
    await row.getByText("Failed", { exact: true }).waitFor();
    scenario.ntfy.setMode("ok");

    await row.getByRole("button", { name: "Edit On call" }).click();
    const edit = form(page, "Edit “On call”");
    await edit.getByText("Saved", { exact: true }).waitFor();
    // Another path on the same server is no move; another server is.
    await edit.getByLabel("ntfy server").fill(`${scenario.ntfy.url}/`);
    await edit.getByText("Saved", { exact: true }).waitFor();
    await edit.getByLabel("ntfy server").fill("https://ntfy.elsewhere.example");
    await edit.getByText("The address changed: enter the saved secrets again").waitFor();
    await edit.getByLabel("Access token").waitFor();
    await edit.getByLabel("ntfy server").fill(scenario.ntfy.url);
    await edit.getByText("Saved", { exact: true }).waitFor();
    await edit.getByRole("checkbox", { name: /Deploy succeeded/ }).check();
    await edit.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Channel “On call” saved");
    const settingsOf = async () =>
      (await callAsAdmin(scenario.stackgate, "GET", "/api/v0/notify/channels")).body.channels.find(
        (channel: { name: string }) => channel.name === "On call",
      );
    expect(await settingsOf()).toMatchObject({
      events: ["deploy.failed", "deploy.succeeded"],
      settings: { url: scenario.ntfy.url, tokenSet: true },
    });

    // Removed, the receiver (which wants a token) refuses the test; given again, it takes it.
    await row.getByRole("button", { name: "Edit On call" }).click();
    await edit.getByRole("button", { name: "Remove Access token" }).click();
    await edit.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Channel “On call” saved");
    expect((await settingsOf()).settings.tokenSet).toBe(false);
    const published = scenario.ntfy.published.length;
    expect(await sendTest(page, "On call", "not delivered")).toContain(
      "The service answered 403: ntfy answered 403 forbidden",
    );
    expect(scenario.ntfy.requests.at(-1)?.headers.authorization).toBeUndefined();

    await row.getByRole("button", { name: "Edit On call" }).click();
    await edit.getByLabel("Access token").fill(NTFY_TOKEN);
    await edit.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Channel “On call” saved");
    expect((await settingsOf()).settings.tokenSet).toBe(true);
    await sendTest(page, "On call", "delivered");
    expect(scenario.ntfy.published).toHaveLength(published + 1);
    expect(await page.content()).not.toContain(NTFY_TOKEN);
  });
});

describe("by keyboard", () => {
  test("add, test, read the log and remove without a mouse; a channel whose last 10 failed is marked failing", async () => {
    const page = await openAlerts();
    await tabTo(page, "Add a channel");
    await page.keyboard.press("Enter");
    await form(page).waitFor();
    await expect.poll(async () => (await focused(page)).tag).toBe("select");
    await page.keyboard.type("Gotify");
    await expect(form(page).getByLabel("Kind").inputValue()).resolves.toBe("gotify");
    for (const text of ["Gotify by keyboard", "http://127.0.0.1:9", "AgotifyToken"]) {
      await page.keyboard.press("Tab");
      await page.keyboard.type(text);
    }
    await page.keyboard.press("Enter");
    await toast(page, "Channel “Gotify by keyboard” added");
    await expect.poll(() => focusedName(page)).toBe("Send test through Gotify by keyboard");

    // Nothing listens there: the answer says so.
    await page.keyboard.press("Enter");
    expect(await testAnswer(page, "Gotify by keyboard", "not delivered")).toContain("No answer:");

    await tabTo(page, "Deliveries of Gotify by keyboard");
    await page.keyboard.press("Enter");
    const log = page.getByRole("region", { name: "Deliveries of Gotify by keyboard" });
    await log.getByText("Stackgate test alert").waitFor();
    await expect.poll(() => focusedName(page)).toContain("Deliveries of Gotify by keyboard");
    await page.keyboard.press("Tab");
    await expect.poll(() => focusedName(page)).toBe("Close");
    await page.keyboard.press("Enter");
    await log.waitFor({ state: "detached" });
    await expect.poll(() => focusedName(page)).toBe("Deliveries of Gotify by keyboard");

    const { body } = await callAsAdmin(scenario.stackgate, "GET", "/api/v0/notify/channels");
    const added = body.channels.find((channel: { name: string }) => channel.name === "Gotify by keyboard");
    expect(added).toMatchObject({ kind: "gotify", settings: { url: "http://127.0.0.1:9", tokenSet: true } });
    for (let test = 0; test < 9; test++)
      await callAsAdmin(scenario.stackgate, "POST", `/api/v0/notify/channels/${added.id}/test`);
    await page.reload();
    await hydrated(page);
    const row = rowOf(page, "Gotify by keyboard");
    await row.getByText("Failing", { exact: true }).waitFor();
    await row.getByText("Its last 10 failed").waitFor();
    await saveScreenshot(page, "alerts-failing", "light");

    await tabTo(page, "Remove Gotify by keyboard");
    await page.keyboard.press("Enter");
    const confirm = page.getByRole("dialog", { name: "Remove the channel “Gotify by keyboard”?" });
    await confirm.waitFor();
    await expect.poll(() => focusedName(page)).toBe("Cancel");
    await page.keyboard.press("Tab");
    await expect.poll(() => focusedName(page)).toBe("Remove channel");
    await page.keyboard.press("Enter");
    await toast(page, "Channel “Gotify by keyboard” removed");
    await row.waitFor({ state: "detached" });
    await expect.poll(() => focusedName(page)).toBe("Add a channel");
  });
});

describe("in Spanish", () => {
  test("the page and the form read in Spanish, and a new channel speaks it", async () => {
    const page = await openAlerts({ lang: "es", viewport: "mobile" });
    await page.getByRole("heading", { level: 1, name: "Ajustes" }).waitFor();
    const section = page.getByRole("region", { name: "Canales de alerta" });
    await section.getByRole("button", { name: "Enviar prueba por On call" }).waitFor();
    await section.getByText("Entregada").filter({ visible: true }).first().waitFor();
    await section.getByRole("button", { name: "Añadir un canal" }).click();
    const spanishForm = page.getByRole("form", { name: "Canal nuevo" });
    await spanishForm.getByLabel("Tipo").selectOption("telegram");
    await spanishForm.getByLabel("Token del bot").waitFor();
    await spanishForm.getByText("De @BotFather").waitFor();
    await expect(spanishForm.getByLabel("Idioma de sus alertas").inputValue()).resolves.toBe("es");
    await saveScreenshot(page, "alerts-es", "light");
    expect(await overflowing(page)).toEqual([]);
  });
});

describe("accessibility", () => {
  for (const viewport of ["desktop", "mobile"] as const) {
    for (const theme of ["light", "dark"] as const) {
      test(`clean under axe at ${viewport} width, ${theme} theme: the list, a test's answer, both forms, the log and the remove dialog`, async () => {
        const found: string[] = [];
        const check = async (page: Page, state: string) => {
          found.push(...describeViolations(state, await axeViolations(page)));
          expect(await overflowing(page), state).toEqual([]);
        };
        const page = await openAlerts({ viewport, theme });
        const listRole = viewport === "desktop" ? "table" : "list";
        await channels(page).getByRole(listRole, { name: "Alert channels" }).getByText("On call").waitFor();
        await check(page, "channels");
        await saveScreenshot(page, `alerts-${viewport}`, theme);

        await sendTest(page, "On call", "delivered");
        await check(page, "a test's answer");

        await channels(page).getByRole("button", { name: "Add a channel" }).click();
        await form(page).getByLabel("Kind").selectOption("email");
        await form(page)
          .getByRole("checkbox", { name: /New vulnerabilities/ })
          .check();
        await check(page, "add form (email)");
        await saveScreenshot(page, `alerts-form-${viewport}`, theme);
        await form(page).getByRole("button", { name: "Cancel" }).click();

        await channels(page).getByRole("button", { name: "Edit Automation" }).click();
        const edit = form(page, "Edit “Automation”");
        await edit.getByText("Saved", { exact: false }).first().waitFor();
        await check(page, "edit form (webhook, saved secrets)");
        await saveScreenshot(page, `alerts-edit-${viewport}`, theme);
        await edit.getByRole("button", { name: "Cancel" }).click();

        await channels(page).getByRole("button", { name: "Deliveries of On call" }).click();
        await page.getByRole("list", { name: "Deliveries of On call" }).waitFor();
        await page.getByRole("list", { name: "Deliveries of On call" }).locator("summary").first().click();
        await check(page, "delivery log");

        await channels(page).getByRole("button", { name: "Remove On call" }).click();
        await page.getByRole("dialog", { name: "Remove the channel “On call”?" }).waitFor();
        await check(page, "remove dialog");
        await page.keyboard.press("Escape");
        expect(found, `axe found:\n${found.join("\n")}`).toEqual([]);
      });
    }
  }
});

describe("removing a channel", () => {
  test("is confirmed, says what stops, and once none is left the page offers to add one", async () => {
    const page = await openAlerts();
    for (const name of ["On call", "Automation"]) {
      await channels(page)
        .getByRole("button", { name: `Remove ${name}` })
        .click();
      const confirm = page.getByRole("dialog", { name: `Remove the channel “${name}”?` });
      await confirm.getByText("its delivery log goes with it").waitFor();
      await confirm.getByRole("button", { name: "Remove channel" }).click();
      await toast(page, `Channel “${name}” removed`);
    }
    await channels(page).getByText("No alert channels yet").waitFor();
    await expect.poll(() => focusedName(page)).toBe("Add a channel");
    const { body } = await callAsAdmin(scenario.stackgate, "GET", "/api/v0/deploy/credentials/notify");
    expect(body.settings).toBeNull();
  });
});
