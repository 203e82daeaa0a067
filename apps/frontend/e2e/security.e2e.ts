import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { hydrated, type OpenPageOptions, saveScreenshot, startBrowser, type TestBrowser } from "./browser.ts";
import { callAsAdmin, connectKomodo } from "./komodo-setup.ts";
import {
  endTestsOf,
  IMAGES,
  overflowing,
  type Scenario,
  STACKS,
  startScenario,
  tableScrollsSideways,
} from "./scenario.ts";

let scenario: Scenario;
let browser: TestBrowser;
/** The images whose registry refuses the stand-in trivy, read at each scan (empty: none). */
const refusedImages = join(mkdtempSync(join(tmpdir(), "stackgate-security-")), "refused.txt");

beforeAll(async () => {
  [scenario, browser] = await Promise.all([
    startScenario({
      stacks: [...STACKS, { name: "search", services: [{ service: "search", image: IMAGES.slow }] }],
      // Long enough to see a scan in progress, short enough for the test.
      backendEnv: { STANDIN_TRIVY_SLOW_MS: "3000", STANDIN_TRIVY_REFUSED_FILE: refusedImages },
    }),
    startBrowser(),
  ]);
});

endTestsOf(() => ({ browser, scenario }));

const baseUrl = () => scenario.stackgate.baseUrl;
const detailPath = (image: string) => `/security?image=${encodeURIComponent(image)}`;

async function openSecurity(path = "/security", options: Partial<OpenPageOptions> = {}) {
  const page = await browser.openPage({ baseUrl: baseUrl(), signedInTo: scenario.stackgate, ...options });
  await page.goto(`${baseUrl()}${path}`);
  await hydrated(page);
  return page;
}

const imageTable = (page: Page) => page.getByRole("table", { name: "Images and their latest scan" });
const rowOf = (page: Page, image: string) =>
  imageTable(page)
    .locator("tbody tr")
    .filter({ has: page.getByRole("link", { name: image, exact: true }) });
const inProgress = (page: Page) =>
  imageTable(page)
    .locator("tbody tr")
    .filter({ hasText: /Queued|Scanning/ });

describe("without a Komodo connection", () => {
  test("the list and the detail both point to Settings", async () => {
    for (const path of ["/security", detailPath(IMAGES.critical)]) {
      const page = await openSecurity(path);
      await page.getByText("No Komodo connection yet").waitFor();
      await expect(page.getByRole("link", { name: "Connect Komodo" }).getAttribute("href")).resolves.toBe(
        "/settings",
      );
    }
    const page = await openSecurity("/security", { viewport: "mobile", theme: "dark" });
    await page.getByText("No Komodo connection yet").waitFor();
    await saveScreenshot(page, "security-no-connection", "dark");
  });
});

describe("with the simulator connected", () => {
  beforeAll(async () => {
    await connectKomodo(scenario.stackgate, scenario.komodo);
  });

  test("lists every image with its counts and reasons, refreshing itself until the scans are done", async () => {
    const page = await openSecurity();
    // The first listing queues every image; the page then polls without being asked.
    await expect.poll(() => inProgress(page).count()).toBeGreaterThan(0);
    await expect.poll(() => inProgress(page).count(), { timeout: 30_000 }).toBe(0);

    const critical = rowOf(page, IMAGES.critical);
    await critical.getByText("Scanned").waitFor();
    const criticalCount = await critical.locator("td").nth(2).textContent();
    expect(Number.parseInt(criticalCount ?? "", 10)).toBeGreaterThan(0);
    await expect(critical.getByRole("link", { name: "web", exact: true }).getAttribute("href")).resolves.toBe(
      "/stacks/web",
    );

    const failed = rowOf(page, IMAGES.private);
    await failed.getByText("Failed").waitFor();
    await failed.getByText("The registry requires credentials").waitFor();
    await expect(failed.locator("td").nth(2).textContent()).resolves.toBe("–");

    const clean = rowOf(page, IMAGES.clean);
    await expect(clean.locator("td").nth(2).textContent()).resolves.toMatch(/^0/);
    // Worst first, as the server sorts them.
    const images = await imageTable(page).locator("tbody tr td:first-child a").allTextContents();
    expect(images[0]).toBe(IMAGES.critical);

    await page.getByText("Scans failed: 1").waitFor();
    for (const viewport of ["desktop", "mobile"] as const) {
      for (const theme of ["light", "dark"] as const) {
        const shot = await openSecurity("/security", { viewport, theme });
        await shot.getByText("Scans failed: 1").waitFor();
        await saveScreenshot(shot, "security", theme);
        expect(await overflowing(shot)).toEqual([]);
        if (viewport === "desktop") {
          expect(await tableScrollsSideways(shot, "Images and their latest scan")).toBe(false);
        }
      }
    }
  });

  test("rescans one image, and all of them, showing the progress as it happens", async () => {
    const page = await openSecurity();
    const slow = rowOf(page, IMAGES.slow);
    await slow.getByText("Scanned").waitFor();
    await slow.getByRole("button", { name: `Rescan ${IMAGES.slow}` }).click();
    await page.getByRole("region", { name: "Notifications" }).getByText("Scans queued: 1").waitFor();
    await slow.getByText(/Queued|Scanning/).waitFor();
    await saveScreenshot(page, "security-scanning", "light");
    await slow.getByText("Scanned").waitFor({ timeout: 20_000 });

    await page.getByRole("button", { name: "Scan all" }).click();
    await page.getByRole("region", { name: "Notifications" }).getByText("Scans queued: 5").waitFor();
    await expect.poll(() => inProgress(page).count(), { timeout: 30_000 }).toBe(0);
  });

  test("opens an image's detail from the list, sorts by severity and keeps only the fixable findings", async () => {
    const page = await openSecurity();
    await rowOf(page, IMAGES.critical).getByRole("link", { name: IMAGES.critical }).click();
    await page.waitForURL(`${baseUrl()}${detailPath(IMAGES.critical)}`);
    await hydrated(page);

    const findings = page.getByRole("table", { name: "Vulnerabilities of the image" });
    const severities = () => findings.locator("tbody tr td:first-child").allTextContents();
    await findings.waitFor();
    const worstFirst = await severities();
    expect(worstFirst[0]).toBe("Critical");
    const order = ["Critical", "High", "Medium", "Low", "Unknown"];
    expect([...worstFirst].sort((a, b) => order.indexOf(a) - order.indexOf(b))).toEqual(worstFirst);
    const severityHeader = findings.getByRole("columnheader", { name: "Severity" });
    await expect(severityHeader.getAttribute("aria-sort")).resolves.toBe("descending");

    await severityHeader.getByRole("button").click();
    await expect(severityHeader.getAttribute("aria-sort")).resolves.toBe("ascending");
    expect((await severities()).at(-1)).toBe("Critical");

    const advisory = findings.getByRole("link").first();
    await expect(advisory.getAttribute("href")).resolves.toMatch(/^https:\/\//);
    await expect(advisory.getAttribute("target")).resolves.toBe("_blank");

    const all = await findings.locator("tbody tr").count();
    await page.getByRole("button", { name: /Fixable only/ }).click();
    const fixable = await findings.locator("tbody tr").count();
    expect(fixable).toBeLessThanOrEqual(all);
    await expect(findings.getByText("No fix yet").count()).resolves.toBe(0);

    for (const viewport of ["desktop", "mobile"] as const) {
      for (const theme of ["light", "dark"] as const) {
        const shot = await openSecurity(detailPath(IMAGES.critical), { viewport, theme });
        await shot.getByRole("table", { name: "Vulnerabilities of the image" }).waitFor();
        await saveScreenshot(shot, "security-detail", theme);
        expect(await overflowing(shot)).toEqual([]);
      }
    }
  });

  test("a failed image's detail says why, and an unknown image is a clear not-found", async () => {
    const failed = await openSecurity(detailPath(IMAGES.private));
    await failed.getByText("The registry requires credentials").waitFor();
    await failed.getByText("Not scanned yet").waitFor();
    await saveScreenshot(failed, "security-detail-failed", "light");

    const unknown = await openSecurity(detailPath("docker.io/library/nowhere:1.0"));
    await unknown.getByText("No such image here").waitFor();
    await unknown.getByText("No stack uses this image").waitFor();
    await expect(unknown.getByRole("link", { name: "All images" }).last().getAttribute("href")).resolves.toBe(
      "/security",
    );
    await saveScreenshot(unknown, "security-not-found", "light");
  });

  test("counts kept from an earlier scan, the latest having failed, say so on the list and the detail", async () => {
    const image = "registry.example.com/acme/ledger:3.1";
    scenario.komodo.addStack({ name: "ledger", services: [{ service: "app", image }] });
    try {
      const page = await openSecurity();
      const row = rowOf(page, image);
      await row.getByText("Scanned").waitFor({ timeout: 20_000 });
      const counts = await row.locator("td").allTextContents();
      await expect(row.getByText("earlier", { exact: true }).count()).resolves.toBe(0);

      // From now on its registry refuses the scanner, as a private registry whose credentials changed.
      writeFileSync(refusedImages, `${image}\n`);
      await row.getByRole("button", { name: `Rescan ${image}` }).click();
      await row.getByText("Failed", { exact: true }).waitFor({ timeout: 20_000 });
      // The counts stay, next to a word that says whose they are, with the sentence and the reason on hover.
      expect((await row.locator("td").allTextContents()).slice(2, 6)).toEqual(counts.slice(2, 6));
      await row.getByText("earlier", { exact: true }).waitFor();
      await row
        .getByTitle(
          /^These counts are from the scan of .+; the latest scan failed\. The registry requires credentials$/,
        )
        .waitFor();
      // An image that never scanned has no counts, and nothing to say about them.
      await expect(rowOf(page, IMAGES.private).getByText("earlier", { exact: true }).count()).resolves.toBe(
        0,
      );
      for (const theme of ["light", "dark"] as const) {
        const shot = await openSecurity("/security", { theme });
        await rowOf(shot, image).getByText("earlier", { exact: true }).waitFor();
        await saveScreenshot(shot, "security-earlier-counts", theme);
        expect(await tableScrollsSideways(shot, "Images and their latest scan")).toBe(false);
      }
      const spanish = await openSecurity("/security", { lang: "es" });
      await spanish.getByText("anterior", { exact: true }).waitFor();
      expect(await tableScrollsSideways(spanish, "Imágenes y su último análisis")).toBe(false);

      const phone = await openSecurity("/security", { viewport: "mobile", theme: "dark" });
      const entry = phone
        .getByRole("list", { name: "Images and their latest scan" })
        .getByRole("listitem")
        .filter({ has: phone.getByRole("link", { name: image, exact: true }) });
      await entry.getByText(/^These counts are from the scan of .+; the latest scan failed\.$/).waitFor();
      await entry.getByText("The registry requires credentials").waitFor();
      await saveScreenshot(phone, "security-earlier-counts", "dark");
      expect(await overflowing(phone)).toEqual([]);

      const detail = await openSecurity(detailPath(image));
      await detail.getByText(/^These counts are from the scan of .+; the latest scan failed\.$/).waitFor();
      await detail.getByText("The registry requires credentials").waitFor();
      await detail.getByRole("table", { name: "Vulnerabilities of the image" }).waitFor();
      await saveScreenshot(detail, "security-detail-earlier-counts", "light");
      const detailEs = await openSecurity(detailPath(image), { lang: "es", viewport: "mobile" });
      await detailEs
        .getByText(/^Estos recuentos son del análisis del .+; el último análisis ha fallado\.$/)
        .waitFor();
    } finally {
      writeFileSync(refusedImages, "");
      expect((await callAsAdmin(scenario.stackgate, "DELETE", "/api/v0/stacks/ledger")).status).toBe(200);
    }
  });

  test("reads in Spanish", async () => {
    const page = await openSecurity("/security", { lang: "es", viewport: "mobile" });
    await page.getByRole("heading", { level: 1, name: "Seguridad" }).waitFor();
    // The table is in the page too, hidden by CSS on a phone: wait for the text that shows.
    await page.getByText("El registro exige credenciales").filter({ visible: true }).first().waitFor();
    await page.getByRole("button", { name: "Analizar todas" }).waitFor();
    await saveScreenshot(page, "security-es", "light");

    const wide = await openSecurity("/security", { lang: "es" });
    await wide.getByRole("button", { name: `Reanalizar ${IMAGES.private}` }).waitFor();
    await saveScreenshot(wide, "security-es", "light");
    // Every column, the action included, in view at 1280 px, even with the longer Spanish words.
    expect(await tableScrollsSideways(wide, "Imágenes y su último análisis")).toBe(false);
  });
});
