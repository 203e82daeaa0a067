import { KOMODO_VERSION, UNREACHABLE_URL } from "@stackgate/simulators";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { hydrated, type OpenPageOptions, saveScreenshot, startBrowser, type TestBrowser } from "./browser.ts";
import { callWithKey } from "./komodo-setup.ts";
import { endTestsOf, overflowing, type Scenario, startScenario } from "./scenario.ts";

let scenario: Scenario;
let browser: TestBrowser;

beforeAll(async () => {
  [scenario, browser] = await Promise.all([startScenario(), startBrowser()]);
});

endTestsOf(() => ({ browser, scenario }));

const baseUrl = () => scenario.stackgate.baseUrl;

async function openSettings(options: Partial<OpenPageOptions> = {}) {
  const page = await browser.openPage({ baseUrl: baseUrl(), signedInTo: scenario.stackgate, ...options });
  await page.goto(`${baseUrl()}/settings`);
  await hydrated(page);
  return page;
}

const section = (page: Page, name: string) => page.getByRole("region", { name });
const connection = (page: Page) => section(page, "Komodo connection");
const apiKeys = (page: Page) => section(page, "API keys");

async function fillConnection(page: Page, url: string) {
  const form = connection(page).getByRole("form", { name: "Komodo connection" });
  await form.getByLabel("Name").fill("simulator");
  await form.getByLabel("Komodo URL").fill(url);
  await form.getByLabel("API key").fill(scenario.komodo.key);
  await form.getByLabel("API secret").fill(scenario.komodo.secret);
  await form.getByRole("button", { name: "Save and check" }).click();
}

describe("the Komodo connection", () => {
  test("starts empty, is saved even when Komodo does not answer, and says why", async () => {
    const page = await openSettings();
    await connection(page).getByText("No Komodo connection yet").waitFor();
    await fillConnection(page, UNREACHABLE_URL);
    const answer = connection(page)
      .getByRole("status")
      .filter({ hasText: "Saved, but Komodo did not answer" });
    await answer.waitFor();
    await connection(page).getByRole("button", { name: "Replace" }).waitFor();
  });

  test("replaced with the simulator, shows Komodo's version, keeps no key or secret in the page, and lists its stacks", async () => {
    const page = await openSettings();
    await connection(page).getByRole("button", { name: "Replace" }).click();
    const form = connection(page).getByRole("form", { name: "Komodo connection" });
    // Name and URL come back for editing; the key and secret never do.
    await expect(form.getByLabel("Name").inputValue()).resolves.toBe("simulator");
    await expect(form.getByLabel("API key").inputValue()).resolves.toBe("");
    await fillConnection(page, scenario.komodo.url);

    await connection(page)
      .getByRole("status")
      .filter({ hasText: `Komodo Core version ${KOMODO_VERSION}.` })
      .waitFor();
    await connection(page).getByText(scenario.komodo.url, { exact: true }).waitFor();
    for (const secret of [scenario.komodo.key, scenario.komodo.secret]) {
      expect(await page.content()).not.toContain(secret);
      expect(await page.evaluate((value) => document.body.innerHTML.includes(value), secret)).toBe(false);
    }
    await saveScreenshot(page, "settings-connected", "light");

    await page.goto(`${baseUrl()}/stacks`);
    await hydrated(page);
    for (const stack of ["web", "billing", "docs", "worker"]) {
      await page.getByRole("link", { name: stack, exact: true }).first().waitFor();
    }
  });
});

describe("API keys", () => {
  test("a new key is shown once, works for a pipeline, and is refused at once after deletion", async () => {
    const page = await openSettings();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl() });
    await apiKeys(page).getByText("No API keys yet").waitFor();
    await apiKeys(page).getByLabel("Name of the new key").fill("deploy-web");
    await apiKeys(page).getByRole("button", { name: "Create key" }).click();

    const dialog = page.getByRole("dialog", { name: "Key “deploy-web” created" });
    await dialog.getByText("Copy it now: it will not be shown again.").waitFor();
    const key = (await dialog.locator("code").first().textContent()) ?? "";
    expect(key).toMatch(/^sg_/);
    await dialog.getByRole("button", { name: "Copy the key" }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(key);
    await saveScreenshot(page, "settings-new-key", "light");
    await expect(callWithKey(baseUrl(), key, "GET", "/api/v0/stacks")).resolves.toBe(200);

    await dialog.getByRole("button", { name: "I've stored it" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await page.content()).not.toContain(key);
    const row = apiKeys(page).getByRole("row").filter({ hasText: "deploy-web" });
    await expect(row.locator("code").textContent()).resolves.toBe(`${key.slice(0, 9)}…`);

    await row.getByRole("button", { name: "Delete the key deploy-web" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete the key “deploy-web”?" });
    await confirm.getByText("Pipelines using it are refused at once").waitFor();
    await confirm.getByRole("button", { name: "Delete key" }).click();
    await confirm.waitFor({ state: "hidden" });
    await apiKeys(page).getByText("No API keys yet").waitFor();
    await expect(callWithKey(baseUrl(), key, "GET", "/api/v0/stacks")).resolves.toBe(401);
  });
});

describe("alerts", () => {
  test("have a tab of their own: the general page holds no alert form, and the tab leads to the channels", async () => {
    const page = await openSettings();
    await connection(page).waitFor();
    expect(await section(page, "Failure alerts").count()).toBe(0);
    expect(await page.getByLabel("ntfy server").count()).toBe(0);
    for (const viewport of ["desktop", "mobile"] as const) {
      for (const theme of ["light", "dark"] as const) {
        const shot = await openSettings({ viewport, theme });
        await section(shot, "API keys").waitFor();
        await saveScreenshot(shot, "settings", theme);
        expect(await overflowing(shot)).toEqual([]);
      }
    }
    await page
      .getByRole("navigation", { name: "Settings sections" })
      .getByRole("link", { name: "Alerts" })
      .click();
    await page.waitForURL(`${baseUrl()}/settings/alerts`);
    await hydrated(page);
    await section(page, "Alert channels").getByText("No alert channels yet").waitFor();
  });
});

describe("in Spanish", () => {
  test("the whole page reads in Spanish", async () => {
    const page = await openSettings({ lang: "es", viewport: "mobile" });
    await page.getByRole("heading", { level: 1, name: "Ajustes" }).waitFor();
    await section(page, "Conexión con Komodo").getByRole("button", { name: "Sustituir" }).waitFor();
    await page
      .getByRole("navigation", { name: "Secciones de ajustes" })
      .getByRole("link", { name: "Alertas" })
      .waitFor();
    await section(page, "Claves de API").getByText("Todavía no hay claves de API").waitFor();
    await saveScreenshot(page, "settings-es", "light");
    expect(await overflowing(page)).toEqual([]);
  });
});

describe("removing the connection", () => {
  test("is confirmed with what stops working, then the page asks for a new one", async () => {
    const page = await openSettings();
    await connection(page).getByRole("button", { name: "Remove" }).click();
    const confirm = page.getByRole("dialog", { name: "Remove the connection “simulator”?" });
    await confirm.getByText("stop working until a new connection is saved").waitFor();
    expect(
      await confirm.getByRole("button", { name: "Cancel" }).evaluate((b) => b === document.activeElement),
    ).toBe(true);
    await confirm.getByRole("button", { name: "Remove connection" }).click();
    await connection(page).getByText("No Komodo connection yet").waitFor();
    await connection(page).getByLabel("API secret").waitFor();
    await saveScreenshot(page, "settings-empty", "light");
  });
});
