import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { hydrated, type OpenPageOptions, saveScreenshot, startBrowser, type TestBrowser } from "./browser.ts";
import { callAsAdmin, callWithKey, connectKomodo } from "./komodo-setup.ts";
import { endTestsOf, overflowing, type Scenario, startScenario } from "./scenario.ts";

let scenario: Scenario;
let browser: TestBrowser;

beforeAll(async () => {
  [scenario, browser] = await Promise.all([startScenario(), startBrowser()]);
  await connectKomodo(scenario.stackgate, scenario.komodo);
});

endTestsOf(() => ({ browser, scenario }));

const baseUrl = () => scenario.stackgate.baseUrl;
const apiKeys = (page: Page) => page.getByRole("region", { name: /^(API keys|Claves de API)$/ });

async function openSettings({
  path = "/settings",
  ...options
}: Partial<OpenPageOptions> & { path?: string } = {}) {
  const page = await browser.openPage({ baseUrl: baseUrl(), signedInTo: scenario.stackgate, ...options });
  await page.goto(`${baseUrl()}${path}`);
  await hydrated(page);
  return page;
}

describe("scoped API keys in Settings", () => {
  test("a key limited to web* and pull is created in the form, listed with its scope, and held to it", async () => {
    const page = await openSettings();
    const section = apiKeys(page);
    await section.getByLabel("Name of the new key").fill("web-pull");
    await section.getByRole("switch", { name: "Limit this key" }).click();
    await section.getByLabel("Stacks", { exact: true }).fill("web*");
    await section.getByRole("checkbox", { name: "redeploy", exact: true }).uncheck();
    await section.getByRole("checkbox", { name: "pull-redeploy", exact: true }).uncheck();
    await section.getByRole("button", { name: "Create key" }).click();

    const dialog = page.getByRole("dialog", { name: "Key “web-pull” created" });
    const key = (await dialog.locator("code").first().textContent()) ?? "";
    expect(key).toMatch(/^sg_/);
    await dialog.getByRole("button", { name: "I've stored it" }).click();
    await dialog.waitFor({ state: "hidden" });

    const row = section.getByRole("row").filter({ hasText: "web-pull" });
    await row.getByText("Stacks: web*").waitFor();
    await row.getByText("Deploy: pull", { exact: true }).waitFor();
    await row.getByText("Never", { exact: true }).first().waitFor();

    await expect(
      callWithKey(baseUrl(), key, "POST", "/api/v0/deploy", { stack: "web", action: "pull" }),
    ).resolves.toBe(200);
    await expect(
      callWithKey(baseUrl(), key, "POST", "/api/v0/deploy", { stack: "web", action: "redeploy" }),
    ).resolves.toBe(403);
    await expect(
      callWithKey(baseUrl(), key, "POST", "/api/v0/deploy", { stack: "billing", action: "pull" }),
    ).resolves.toBe(403);
    // The last use shows once the page reads the list again: created and last used are both times.
    await page.reload();
    await hydrated(page);
    await apiKeys(page).getByRole("row").filter({ hasText: "web-pull" }).locator("time").nth(1).waitFor();
  });

  test("warns about a key that expires within 7 days, at 375 px and 1280 px, in both themes and languages", async () => {
    const expiresAt = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const created = await callAsAdmin(scenario.stackgate, "POST", "/api/v0/apikeys", {
      name: "nightly-metrics",
      expiresAt,
      scope: { actions: [], read: [], metrics: true },
    });
    expect(created.status).toBe(200);
    // In the page's language, not the browser's.
    const expiryShown = (lang: string) =>
      new Intl.DateTimeFormat(lang, { dateStyle: "medium" }).format(new Date(expiresAt));

    for (const viewport of ["mobile", "desktop"] as const) {
      for (const theme of ["light", "dark"] as const) {
        const page = await openSettings({ viewport, theme });
        const section = apiKeys(page);
        await section.getByText("Keys that expire within 7 days").waitFor();
        await section
          .getByText("Create their replacements before they stop working: nightly-metrics.")
          .waitFor();
        const row = section.getByRole("row").filter({ hasText: "nightly-metrics" });
        await row.getByText("Expires soon").waitFor();
        await row.getByText(expiryShown("en"), { exact: true }).waitFor();
        await row.getByText("No deploys").waitFor();
        await row.getByText("Metrics", { exact: true }).waitFor();
        await section.getByRole("switch", { name: "Limit this key" }).click();
        await section.getByRole("checkbox", { name: "Prometheus metrics (/metrics)" }).waitFor();
        expect(await overflowing(page)).toEqual([]);
        await saveScreenshot(page, `settings-scoped-keys-${viewport}`, theme);
      }
    }

    const spanish = await openSettings({ viewport: "mobile", lang: "es" });
    const section = apiKeys(spanish);
    await section.getByText("Claves que caducan en los próximos 7 días").waitFor();
    await section
      .getByRole("row")
      .filter({ hasText: "nightly-metrics" })
      .getByText("Caduca pronto")
      .waitFor();
    await section.getByText(expiryShown("es"), { exact: true }).waitFor();
    await section.getByRole("switch", { name: "Limitar esta clave" }).click();
    await section.getByRole("checkbox", { name: "Métricas de Prometheus (/metrics)" }).waitFor();
    expect(await overflowing(spanish)).toEqual([]);
  });
});

describe("new-vulnerability alerts in Settings › Alerts", () => {
  test("are off on a new channel until chosen, then saved with their severity and the first-scan choice", async () => {
    const page = await openSettings({ viewport: "mobile", theme: "dark", path: "/settings/alerts" });
    await page.getByRole("button", { name: "Add a channel" }).first().click();
    const form = page.getByRole("form", { name: "New channel" });
    await form.getByLabel("Kind").selectOption("ntfy");
    await form.getByLabel("Name").fill("Security");
    await form.getByLabel("ntfy server").fill(scenario.ntfy.url);
    await form.getByLabel("Topic").fill("security");
    const vulnerabilities = form.getByRole("checkbox", { name: /New vulnerabilities/ });
    expect(await vulnerabilities.isChecked()).toBe(false);
    expect(await form.getByLabel("Vulnerabilities from severity").count()).toBe(0);
    await vulnerabilities.check();
    await form.getByLabel("Vulnerabilities from severity").selectOption("high");
    await form.getByRole("switch", { name: "Also on an image's first scan" }).click();
    expect(await overflowing(page)).toEqual([]);
    await saveScreenshot(page, "settings-vulnerability-alerts-mobile", "dark");
    await form.getByRole("button", { name: "Add channel" }).click();
    await page.getByText("Channel “Security” added").first().waitFor();

    // The specification's ntfy endpoints read the same channel.
    const { body } = await callAsAdmin(scenario.stackgate, "GET", "/api/v0/deploy/credentials/notify");
    expect(body.settings).toMatchObject({
      vulnerabilityAlerts: true,
      vulnerabilitySeverity: "high",
      alertOnFirstScan: true,
    });

    const spanish = await openSettings({ lang: "es", viewport: "mobile", path: "/settings/alerts" });
    await spanish.getByRole("button", { name: "Editar Security" }).click();
    const edit = spanish.getByRole("form", { name: "Editar «Security»" });
    expect(await edit.getByRole("checkbox", { name: /Vulnerabilidades nuevas/ }).isChecked()).toBe(true);
    await expect(edit.getByLabel("Vulnerabilidades desde la gravedad").inputValue()).resolves.toBe("high");
    const firstScan = edit.getByRole("switch", { name: "También en el primer escaneo de una imagen" });
    await expect(firstScan.getAttribute("aria-checked")).resolves.toBe("true");
    expect(await overflowing(spanish)).toEqual([]);
  });
});
