/**
 * Settings › Alerts: an admin adds an ntfy channel and hears a failed deploy on it, with the form
 * showing only the chosen kind's fields; a test that reports the service's own answer; the delivery
 * log; a changed address asking for the token again; keyboard use; both languages; and axe at a
 * laptop's and a phone's width in both themes.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { axeViolations, describeViolations } from "./axe.ts";
import { hydrated, type OpenPageOptions, saveScreenshot, startBrowser, type TestBrowser } from "./browser.ts";
import { callAsAdmin, connectKomodo, createApiKey, deployWithKey } from "./komodo-setup.ts";
import { endTestsOf, overflowing, type Scenario, startScenario } from "./scenario.ts";

const NTFY_TOKEN = "tk_e2e0alerts0token00abcdefghijk";

let scenario: Scenario;
let browser: TestBrowser;
let apiKey: string;

beforeAll(async () => {
  [scenario, browser] = await Promise.all([startScenario({ ntfyToken: NTFY_TOKEN }), startBrowser()]);
  await connectKomodo(scenario.stackgate, scenario.komodo);
  apiKey = await createApiKey(scenario.stackgate, "release");
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

/** The form's visible field labels, in order. */
const fieldLabels = (page: Page, name?: string) =>
  form(page, name)
    .locator("label, legend")
    .evaluateAll((labels) =>
      labels.filter((label) => label.checkVisibility()).map((label) => label.textContent?.trim()),
    );

describe("adding a channel", () => {
  test("shows only the chosen kind's fields, with help for each", async () => {
    const page = await openAlerts();
    await channels(page).getByText("No alert channels yet").waitFor();
    await channels(page).getByRole("button", { name: "Add a channel" }).first().click();
    const kind = form(page).getByLabel("Kind");
    await kind.selectOption("slack");
    expect(await fieldLabels(page)).toEqual(expect.arrayContaining(["Webhook URL"]));
    expect(await fieldLabels(page)).not.toContain("Topic");
    await form(page).getByText("Incoming Webhooks").first().waitFor();

    await kind.selectOption("email");
    const email = await fieldLabels(page);
    for (const label of ["SMTP server", "Security", "Port", "User name", "Password", "From", "To"])
      expect(email).toContain(label);
    expect(email).not.toContain("Webhook URL");

    await kind.selectOption("webhook");
    await form(page).getByRole("button", { name: "Generate" }).click();
    await expect(form(page).getByLabel("Signing secret").inputValue()).resolves.toMatch(
      /^whsec_[A-Za-z0-9+/]{43}=$/,
    );
    await form(page).getByRole("button", { name: "Cancel" }).click();
    await form(page).waitFor({ state: "detached" });
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
    await page.getByRole("region", { name: "Notifications" }).getByText("Channel “On call” added").waitFor();
    const row = channels(page).getByRole("row").filter({ hasText: "On call" });
    await row.getByText("On", { exact: true }).waitFor();
    expect(await page.content()).not.toContain(NTFY_TOKEN);

    await row.getByRole("button", { name: "Send test through On call" }).click();
    const answer = channels(page).getByRole("status").filter({ hasText: "Test delivered through On call" });
    await answer.waitFor();
    await expect(answer.textContent()).resolves.toMatch(
      /The service answered 200: ntfy accepted the message \(id \w+\)/,
    );
    expect(scenario.ntfy.published.at(-1)).toMatchObject({
      topic: "stackgate-alerts",
      title: "Stackgate test alert",
    });
    expect(scenario.ntfy.requests.at(-1)?.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);

    expect((await deployWithKey(scenario.stackgate, apiKey, "worker", "redeploy")).status).toBe(502);
    await expect.poll(() => scenario.ntfy.published.at(-1)?.title).toBe("Deploy failed: redeploy of worker");

    await row.getByRole("button", { name: "Deliveries of On call" }).click();
    const log = page.getByRole("list", { name: "Deliveries of On call" });
    await log.getByText("Deploy failed", { exact: true }).waitFor();
    await log.getByText("Deploy failed: redeploy of worker").waitFor();
    await expect(log.getByRole("listitem").count()).resolves.toBe(2);
    await saveScreenshot(page, "alerts-log", "light");
  });

  test("a refused test shows the service's answer; a moved address asks for the token again", async () => {
    const page = await openAlerts();
    const row = channels(page).getByRole("row").filter({ hasText: "On call" });
    scenario.ntfy.setMode("forbidden");
    await row.getByRole("button", { name: "Send test through On call" }).click();
    const refused = channels(page)
      .getByRole("status")
      .filter({ hasText: "Test not delivered through On call" });
    await refused.waitFor();
    await expect(refused.textContent()).resolves.toContain(
      "The service answered 403: ntfy answered 403 forbidden",
    );
    scenario.ntfy.setMode("ok");

    await row.getByRole("button", { name: "Edit On call" }).click();
    const edit = form(page, "Edit “On call”");
    await edit.getByText("Saved", { exact: true }).waitFor();
    await edit.getByLabel("ntfy server").fill("https://ntfy.elsewhere.example");
    await edit.getByText("The address changed: enter the saved secrets again").waitFor();
    await edit.getByLabel("Access token").waitFor();
    await edit.getByLabel("ntfy server").fill(scenario.ntfy.url);
    await edit.getByText("Saved", { exact: true }).waitFor();
    await edit.getByRole("checkbox", { name: /Deploy succeeded/ }).check();
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("region", { name: "Notifications" }).getByText("Channel “On call” saved").waitFor();
    const { body } = await callAsAdmin(scenario.stackgate, "GET", "/api/v0/notify/channels");
    expect(body.channels[0]).toMatchObject({
      events: ["deploy.failed", "deploy.succeeded"],
      settings: { url: scenario.ntfy.url, tokenSet: true },
    });
  });
});

describe("by keyboard", () => {
  test("the form opens at its first field, fills and saves without a mouse, and the log takes the focus", async () => {
    const page = await openAlerts();
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement;
        return {
          tag: element?.tagName.toLowerCase(),
          name: element?.getAttribute("aria-label") ?? element?.textContent?.trim() ?? "",
        };
      });
    const tabTo = async (name: string) => {
      for (let press = 0; press < 60; press++) {
        if ((await focused()).name === name) return;
        await page.keyboard.press("Tab");
      }
      throw new Error(`Tab never reached ${name}`);
    };
    await tabTo("Add a channel");
    await page.keyboard.press("Enter");
    await form(page).waitFor();
    await expect.poll(async () => (await focused()).tag).toBe("select");
    await page.keyboard.type("Gotify");
    await expect(form(page).getByLabel("Kind").inputValue()).resolves.toBe("gotify");
    for (const text of ["Gotify by keyboard", "http://127.0.0.1:9", "AgotifyToken"]) {
      await page.keyboard.press("Tab");
      await page.keyboard.type(text);
    }
    await page.keyboard.press("Enter");
    await page
      .getByRole("region", { name: "Notifications" })
      .getByText("Channel “Gotify by keyboard” added")
      .waitFor();
    await expect.poll(async () => (await focused()).name).toBe("Add a channel");
    await tabTo("Deliveries of Gotify by keyboard");
    await page.keyboard.press("Enter");
    await page.getByRole("region", { name: "Deliveries of Gotify by keyboard" }).waitFor();
    await expect.poll(async () => (await focused()).name).toContain("Deliveries of Gotify by keyboard");
    const { body } = await callAsAdmin(scenario.stackgate, "GET", "/api/v0/notify/channels");
    const added = body.channels.find((channel: { name: string }) => channel.name === "Gotify by keyboard");
    expect(added).toMatchObject({ kind: "gotify", settings: { url: "http://127.0.0.1:9", tokenSet: true } });
    await callAsAdmin(scenario.stackgate, "DELETE", `/api/v0/notify/channels/${added.id}`);
  });
});

describe("in Spanish", () => {
  test("the page and the form read in Spanish", async () => {
    const page = await openAlerts({ lang: "es", viewport: "mobile" });
    await page.getByRole("heading", { level: 1, name: "Ajustes" }).waitFor();
    const section = page.getByRole("region", { name: "Canales de alerta" });
    await section.getByRole("button", { name: "Enviar prueba por On call" }).waitFor();
    await section.getByRole("button", { name: "Añadir un canal" }).click();
    const spanishForm = page.getByRole("form", { name: "Canal nuevo" });
    await spanishForm.getByLabel("Tipo").selectOption("telegram");
    await spanishForm.getByLabel("Token del bot").waitFor();
    await spanishForm.getByText("De @BotFather").waitFor();
    await saveScreenshot(page, "alerts-es", "light");
    expect(await overflowing(page)).toEqual([]);
  });
});

describe("accessibility", () => {
  for (const viewport of ["desktop", "mobile"] as const) {
    for (const theme of ["light", "dark"] as const) {
      test(`clean under axe at ${viewport} width, ${theme} theme: the list, the form, the log and the remove dialog`, async () => {
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

        await channels(page).getByRole("button", { name: "Add a channel" }).click();
        await form(page).getByLabel("Kind").selectOption("email");
        await form(page)
          .getByRole("checkbox", { name: /New vulnerabilities/ })
          .check();
        await check(page, "add form (email)");
        await saveScreenshot(page, `alerts-form-${viewport}`, theme);
        await form(page).getByRole("button", { name: "Cancel" }).click();

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
  test("is confirmed, and then the page offers to add one", async () => {
    const page = await openAlerts();
    await channels(page).getByRole("button", { name: "Remove On call" }).click();
    const confirm = page.getByRole("dialog", { name: "Remove the channel “On call”?" });
    await confirm.getByText("its delivery log goes with it").waitFor();
    await confirm.getByRole("button", { name: "Remove channel" }).click();
    await channels(page).getByText("No alert channels yet").waitFor();
    const { body } = await callAsAdmin(scenario.stackgate, "GET", "/api/v0/deploy/credentials/notify");
    expect(body.settings).toBeNull();
  });
});
