import { DEMO_DEPLOY_ERROR } from "@stackgate/simulators";
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { hydrated, saveScreenshot } from "./browser.ts";
import { connectKomodo, deployWithKey, disconnectKomodo, seedPastDeploys } from "./komodo-setup.ts";
import { API_KEY_NAME, CRITICAL_IMAGE, scansSettled, stackWorldOfThisFile } from "./stack-world.ts";

/** 30 days of history: 2 deploys on most days, a failure every fifth day, nothing on some days. */
function pastDeploys() {
  return Array.from({ length: 29 }, (_, index) => index + 1)
    .filter((daysAgo) => daysAgo % 6 !== 0)
    .flatMap((daysAgo) => [
      { daysAgo, stack: "gitea", success: true },
      {
        daysAgo,
        stack: "grafana",
        success: daysAgo % 5 !== 0,
        message: "DeployStack failed: image not found",
      },
    ]);
}

const world = stackWorldOfThisFile({}, async (scene) => {
  seedPastDeploys(scene.stackgate, pastDeploys());
  // Today: one success and one failure, made as a pipeline would.
  expect((await deployWithKey(scene.stackgate, scene.apiKey, "pihole", "pull")).status).toBe(200);
  expect((await deployWithKey(scene.stackgate, scene.apiKey, "outline", "redeploy")).status).toBe(502);
});

const counters = (page: Page) => page.getByRole("list", { name: "Stacks at a glance" });
const counter = (page: Page, label: string) => counters(page).getByRole("link").filter({ hasText: label });

test("counts the stacks as the Stacks page filters them, each counter opening that filter", async () => {
  const page = await world().openSignedIn("/");
  await counters(page).waitFor();
  await expect(counter(page, "Stacks").textContent()).resolves.toBe("Stacks21In Komodo");
  await expect(counter(page, "Running").textContent()).resolves.toContain("14");
  await expect(counter(page, "Update available").textContent()).resolves.toContain("6");
  // Unhealthy nextcloud and loki, restarting immich, and outline whose last deploy failed.
  await expect(counter(page, "In trouble").textContent()).resolves.toContain("4");
  expect(await counter(page, "In trouble").getAttribute("href")).toBe("/stacks?filter=problems");
});

test("shows the 30-day success rate and a per-day chart of successes and failures, with its figures", async () => {
  const page = await world().openSignedIn("/");
  const deploys = page.getByRole("region", { name: "Deploys" });
  const chart = deploys.getByRole("img", { name: /Deploys per day, last 30 days/ });
  await chart.waitFor();
  // 25 past days with 2 deploys each (5 of them with a failure) and today's 2 (1 failure).
  const total = 25 * 2 + 2;
  const failed = 5 + 1;
  const rate = new Intl.NumberFormat("en", { style: "percent", maximumFractionDigits: 1 }).format(
    (total - failed) / total,
  );
  await deploys.getByText(rate, { exact: true }).waitFor();
  await expect(chart.getAttribute("aria-labelledby")).resolves.toBeTruthy();
  const description = await chart.evaluate((svg) => svg.querySelector("desc")?.textContent);
  expect(description).toBe(
    `${total} deploys in the last 30 days: ${total - failed} succeeded and ${failed} failed (${rate} success).`,
  );
  await expect(chart.locator("rect.fill-danger").count()).resolves.toBe(6);
  await expect(chart.locator("rect.fill-success").count()).resolves.toBe(26);

  await deploys.getByText("Show the figures (26 days with deploys)").click();
  const figures = deploys.getByRole("table", { name: "Deploys per day, last 30 days" });
  await expect(figures.locator("tbody tr").count()).resolves.toBe(26);
});

test("lists recent failures with Komodo's reason and links to the history", async () => {
  const page = await world().openSignedIn("/");
  const failures = page.getByRole("region", { name: "Recent problems" });
  const outline = failures.getByRole("listitem").filter({ hasText: "outline" });
  await outline.waitFor();
  await expect(outline.textContent()).resolves.toContain(DEMO_DEPLOY_ERROR);
  await outline.getByText(`Redeploy by API Key: ${API_KEY_NAME}`).waitFor();
  expect(await failures.getByRole("link", { name: "History" }).getAttribute("href")).toBe("/history");
});

test("lists images with critical vulnerabilities, linking to the Security page", async () => {
  await scansSettled(world());
  const page = await world().openSignedIn("/");
  const critical = page.getByRole("region", { name: "Images with critical vulnerabilities" });
  const link = critical.getByRole("link", { name: CRITICAL_IMAGE });
  await link.waitFor();
  expect(await link.getAttribute("href")).toBe(`/security?image=${encodeURIComponent(CRITICAL_IMAGE)}`);
  await critical.getByText("Used by legacy").waitFor();
});

test("shows deploys in progress from anyone, live", async () => {
  world().komodo.faults.setStack("jellyfin", { updateDelayMs: 1_500 });
  const page = await world().openSignedIn("/");
  const live = page.getByRole("region", { name: "Deploying now" });
  await live.getByText("Nothing is deploying.", { exact: false }).waitFor();
  const answer = deployWithKey(world().stackgate, world().apiKey, "jellyfin", "redeploy");
  await live.getByRole("link", { name: "jellyfin" }).waitFor();
  await live.getByTitle(`API Key: ${API_KEY_NAME}`).waitFor();
  await saveScreenshot(page, "overview-deploying", "light");
  expect((await answer).status).toBe(200);
  await live.getByText("Nothing is deploying.", { exact: false }).waitFor();
});

test("each block stands alone: without Komodo the stack counters say so, the history still shows", async () => {
  await disconnectKomodo(world().stackgate);
  try {
    const page = await world().openSignedIn("/");
    await page.getByText("No Komodo connection yet").first().waitFor();
    expect(await page.getByRole("link", { name: "Connect" }).first().getAttribute("href")).toBe("/settings");
    await page.getByRole("img", { name: /Deploys per day/ }).waitFor();
    await page
      .getByRole("region", { name: "Recent problems" })
      .getByRole("link", { name: "outline", exact: true })
      .waitFor();
    await saveScreenshot(page, "overview-no-connection", "light");
  } finally {
    await connectKomodo(world().stackgate, world().komodo);
  }
});

/** Records every use of Intl (or of a method that goes through it) in `window.intlUses`. */
function recordIntlUses() {
  const uses: string[] = [];
  Object.assign(window, { intlUses: uses });
  const record = (name: string) => uses.push(`${name} ${new Error().stack?.split("\n")[3]?.trim()}`);
  const intl = Intl as unknown as Record<string, object>;
  for (const name of Object.getOwnPropertyNames(Intl)) {
    if (typeof intl[name] !== "function") continue;
    intl[name] = new Proxy(intl[name], {
      construct(target, args) {
        record(name);
        return Reflect.construct(target as never, args);
      },
      apply(target, self, args) {
        record(name);
        return Reflect.apply(target as never, self, args);
      },
    });
  }
  for (const [owner, method] of [
    [String.prototype, "localeCompare"],
    [Number.prototype, "toLocaleString"],
    [Date.prototype, "toLocaleString"],
    [Date.prototype, "toLocaleDateString"],
    [Date.prototype, "toLocaleTimeString"],
  ] as const) {
    const original = (owner as unknown as Record<string, (...args: unknown[]) => unknown>)[method];
    Object.defineProperty(owner, method, {
      value(this: unknown, ...args: unknown[]) {
        record(method);
        return original.apply(this, args);
      },
    });
  }
}

test("shows its dates, times and rates, and a stack's page its history, without Intl (which loads ICU: slow on a phone)", async () => {
  const page = await world().openSignedIn("/");
  await page.addInitScript(recordIntlUses);
  const { baseUrl } = world().stackgate;

  await page.goto(`${baseUrl}/`);
  await hydrated(page);
  await page.getByRole("region", { name: "Recent problems" }).locator("time").first().waitFor();
  await page.getByRole("img", { name: /Deploys per day/ }).waitFor();
  await page
    .getByRole("region", { name: "Deploys" })
    .getByText(/^\d+(\.\d)?%$/)
    .waitFor();
  expect(await page.evaluate(() => (window as unknown as { intlUses: string[] }).intlUses)).toEqual([]);

  await page.goto(`${baseUrl}/stacks/outline`);
  await hydrated(page);
  await page.getByRole("table").locator("time").first().waitFor();
  expect(await page.evaluate(() => (window as unknown as { intlUses: string[] }).intlUses)).toEqual([]);
});

describe("screenshots", () => {
  for (const viewport of ["desktop", "mobile"] as const) {
    for (const theme of ["light", "dark"] as const) {
      test(`overview at ${viewport}, ${theme}`, async () => {
        await scansSettled(world());
        const page = await world().openSignedIn("/", { viewport, theme });
        await page.getByRole("img", { name: /Deploys per day/ }).waitFor();
        await counters(page).waitFor();
        await page
          .getByRole("region", { name: "Images with critical vulnerabilities" })
          .getByRole("listitem")
          .first()
          .waitFor();
        await saveScreenshot(page, "overview-page", theme);
      });
    }
  }

  test("in Spanish", async () => {
    const page = await world().openSignedIn("/", { lang: "es", theme: "dark" });
    await page.getByRole("img", { name: /Despliegues por día/ }).waitFor();
    await page.getByRole("list", { name: "Los stacks de un vistazo" }).waitFor();
    await saveScreenshot(page, "overview-page-es", "dark");
  });
});
