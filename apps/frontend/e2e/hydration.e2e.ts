/**
 * What a person types while a page is still becoming interactive is kept: the islands' scripts are
 * held back until the typing is done, as on a slow phone.
 */
import { beforeAll, describe, expect, test } from "vitest";
import { holdRequests, hydrated, startBrowser, type TestBrowser } from "./browser.ts";
import { endTestsOf, type Scenario, startScenario } from "./scenario.ts";

let scenario: Scenario;
let browser: TestBrowser;

beforeAll(async () => {
  [scenario, browser] = await Promise.all([startScenario(), startBrowser()]);
});

endTestsOf(() => ({ browser, scenario }));

describe("typing before the page is interactive", () => {
  test("a new API key's name survives hydration and the key is created with it", async () => {
    const baseUrl = scenario.stackgate.baseUrl;
    const page = await browser.openPage({ baseUrl, signedInTo: scenario.stackgate });
    const releaseScripts = await holdRequests(page, "**/_astro/**/*.js");

    await page.goto(`${baseUrl}/settings`, { waitUntil: "domcontentloaded" });
    const keys = page.getByRole("region", { name: "API keys" });
    const name = keys.getByLabel("Name of the new key");
    await name.fill("typed-early");
    releaseScripts();
    await hydrated(page);

    expect(await name.inputValue()).toBe("typed-early");
    await keys.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain("typed-early");
  });
});
