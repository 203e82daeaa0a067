import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import {
  hydrated,
  type OpenPageOptions,
  saveScreenshot,
  startBrowser,
  type TestBrowser,
  VIEWPORTS,
} from "./browser.ts";
import { type Stackgate, startFrontend, startStackgate } from "./harness.ts";

let stackgate: Stackgate;
let browser: TestBrowser;

import { UNREACHABLE_URL } from "@stackgate/simulators";

beforeAll(async () => {
  [stackgate, browser] = await Promise.all([startStackgate(), startBrowser()]);
});

afterEach(async () => {
  expect(await browser.finishTest()).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await stackgate?.stop();
});

function openPage(options: Partial<OpenPageOptions> = {}) {
  return browser.openPage({ baseUrl: stackgate.baseUrl, ...options });
}

/** A signed-in page already showing `path`, for tests whose subject is not the sign-in form. */
async function openSignedIn(path: string) {
  const page = await openPage({ signedInTo: stackgate });
  await page.goto(`${stackgate.baseUrl}${path}`);
  await hydrated(page);
  return page;
}

async function fillSignIn(page: Page, password: string) {
  await hydrated(page);
  await page.getByLabel("Email").fill(stackgate.admin.email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

const html = (page: Page) => page.locator("html");

describe("signing in", () => {
  test("a signed-out visitor goes to sign-in, sees a wrong password refused, then lands where they were going", async () => {
    const page = await openPage();
    await page.goto(`${stackgate.baseUrl}/history?range=7d`);
    await page.waitForURL(/\/sign-in\?/);
    expect(new URL(page.url()).searchParams.get("next")).toBe("/history?range=7d");

    await fillSignIn(page, "not-the-password");
    await page.getByRole("alert").filter({ hasText: "Wrong email or password." }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    expect(await page.getByLabel("Password").evaluate((input) => input === document.activeElement)).toBe(
      true,
    );
    await saveScreenshot(page, "sign-in-error", "light");

    await fillSignIn(page, stackgate.admin.password);
    await page.waitForURL(`${stackgate.baseUrl}/history?range=7d`);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("History");
    const current = page.getByRole("navigation", { name: "Main" }).locator('[aria-current="page"]');
    await expect(current.textContent()).resolves.toBe("History");
  });

  test("a session that expires while a page is open returns to sign-in, then back to the page", async () => {
    const page = await openSignedIn("/settings");
    const cookie = (await page.context().cookies())
      .filter((candidate) => candidate.name.includes("session"))
      .map((candidate) => `${candidate.name}=${candidate.value}`)
      .join("; ");
    // The session ends on the server (as when it expires); the open page does not know yet.
    const signOut = await fetch(`${stackgate.baseUrl}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie, origin: stackgate.baseUrl, "content-type": "application/json" },
      body: "{}",
    });
    expect(signOut.status).toBe(200);

    // Whichever call from the open page meets the 401 first (this click, a background refetch, the
    // event stream reconnecting) sends it to sign-in; the click only makes sure one call is made.
    const backToSignIn = page.waitForURL(/\/sign-in\?next=%2Fsettings$/);
    await page
      .getByLabel("Name of the new key")
      .fill("after-expiry", { timeout: 5000 })
      .then(() => page.getByRole("button", { name: "Create key" }).click({ timeout: 5000 }))
      .catch(() => {});
    await backToSignIn;
    await fillSignIn(page, stackgate.admin.password);
    await page.waitForURL(`${stackgate.baseUrl}/settings`);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Settings");
  });

  test("a next parameter pointing off the site is ignored", async () => {
    for (const next of ["https://evil.example/", "//evil.example/x", "/\\evil.example"]) {
      const page = await openPage();
      await page.goto(`${stackgate.baseUrl}/sign-in?next=${encodeURIComponent(next)}`);
      await fillSignIn(page, stackgate.admin.password);
      await page.waitForURL(`${stackgate.baseUrl}/`);
    }
  });

  test("a signed-in visitor of /sign-in goes straight on", async () => {
    const page = await openSignedIn("/");
    await page.goto(`${stackgate.baseUrl}/sign-in?next=%2Fsecurity`);
    await page.waitForURL(`${stackgate.baseUrl}/security`);
  });
});

describe("the shell", () => {
  test("marks the current section and moves between sections", async () => {
    const page = await openSignedIn("/");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.locator('[aria-current="page"]').textContent()).resolves.toBe("Overview");
    await nav.getByRole("link", { name: "Stacks" }).click();
    await page.waitForURL(`${stackgate.baseUrl}/stacks`);
    await expect(nav.locator('[aria-current="page"]').textContent()).resolves.toBe("Stacks");
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Stacks");
    await expect(page.title()).resolves.toBe("Stacks · Stackgate");

    await page.keyboard.press("Tab");
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    await expect(focused()).resolves.toBe("Skip to content");
    await page.keyboard.press("Enter");
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("main");
  });

  test("switches to Spanish and back, remembered in a one-year cookie", async () => {
    const page = await openSignedIn("/settings");
    await Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "Español" }).click()]);
    await hydrated(page);
    await expect(html(page).getAttribute("lang")).resolves.toBe("es");
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Ajustes");
    await expect(page.getByRole("link", { name: "Resumen" }).count()).resolves.toBe(1);
    await expect(page.getByRole("region", { name: "Conexión con Komodo" }).count()).resolves.toBe(1);

    const cookie = (await page.context().cookies()).find((c) => c.name === "sg_lang");
    expect(cookie?.value).toBe("es");
    expect(cookie?.sameSite).toBe("Lax");
    expect(cookie?.path).toBe("/");
    expect((cookie?.expires ?? 0) - Date.now() / 1000).toBeGreaterThan(364 * 24 * 3600);
    await saveScreenshot(page, "settings-es", "light");

    await Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "English" }).click()]);
    await expect(html(page).getAttribute("lang")).resolves.toBe("en");
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Settings");
  });

  test("switches the theme at once, and the server renders it on the next visit", async () => {
    const page = await openSignedIn("/");
    const themeSwitch = page.getByRole("switch", { name: "Dark theme" });
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const lightBackground = await background();
    await expect(themeSwitch.getAttribute("aria-checked")).resolves.toBe("false");

    await themeSwitch.click();
    await expect(html(page).getAttribute("data-theme")).resolves.toBe("dark");
    await expect(themeSwitch.getAttribute("aria-checked")).resolves.toBe("true");
    expect(await background()).not.toBe(lightBackground);

    await page.reload();
    await hydrated(page);
    await expect(html(page).getAttribute("data-theme")).resolves.toBe("dark");
    await themeSwitch.click();
    await expect(html(page).getAttribute("data-theme")).resolves.toBe("light");
    expect(await background()).toBe(lightBackground);
  });

  test("signs out from the account menu; protected pages then ask to sign in again", async () => {
    const page = await openSignedIn("/");
    const account = page.getByRole("button", { name: `Account of ${stackgate.admin.name}` });
    await account.click();
    await expect(account.getAttribute("aria-expanded")).resolves.toBe("true");
    await page.getByText(stackgate.admin.email).waitFor();
    await saveScreenshot(page, "account-menu", "light");
    await page.keyboard.press("Escape");
    await expect(account.getAttribute("aria-expanded")).resolves.toBe("false");
    expect(await account.evaluate((button) => button === document.activeElement)).toBe(true);

    await account.click();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${stackgate.baseUrl}/sign-in`);
    await page.goto(`${stackgate.baseUrl}/settings`);
    await page.waitForURL(`${stackgate.baseUrl}/sign-in?next=%2Fsettings`);
  });

  test("answers unknown pages with a 404 in the shell", async () => {
    const page = await openPage({ signedInTo: stackgate });
    const response = await page.goto(`${stackgate.baseUrl}/no/such/page`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Page not found");
    await expect(page.getByRole("navigation", { name: "Main" }).count()).resolves.toBe(1);
    await saveScreenshot(page, "not-found", "light");
  });
});

describe("the design system", () => {
  test("confirm dialog: focus starts on Cancel, Escape closes it, confirming reports through a toast", async () => {
    const page = await openSignedIn("/design-system");
    const row = page.getByRole("row").filter({ hasText: "stack-01" });
    // Density: rows of at most 34 px let a 1280×800 screen show 15 stacks with their actions.
    expect((await row.boundingBox())?.height).toBeLessThanOrEqual(34);
    await row.getByRole("button", { name: "Redeploy" }).click();
    const dialog = page.getByRole("dialog", { name: "Redeploy stack-01?" });
    await dialog.waitFor();
    expect(
      await dialog.getByRole("button", { name: "Cancel" }).evaluate((b) => b === document.activeElement),
    ).toBe(true);
    await saveScreenshot(page, "confirm-dialog", "light");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });

    await row.getByRole("button", { name: "Redeploy" }).click();
    await dialog.getByRole("button", { name: "Redeploy" }).click();
    await page.getByRole("region", { name: "Notifications" }).getByText("Redeployed stack-01").waitFor();
    await saveScreenshot(page, "toast", "light");
    await dialog.waitFor({ state: "hidden" });
  });

  test("copy button copies the full value and says so", async () => {
    const page = await openSignedIn("/design-system");
    await page
      .context()
      .grantPermissions(["clipboard-read", "clipboard-write"], { origin: stackgate.baseUrl });
    await page.getByRole("button", { name: "Copy image reference of stack-02" }).click();
    await page.getByRole("status").filter({ hasText: "Copied" }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toMatch(/^registry\.example\.com\/team\/service-2:1\.1\.0@sha256:/);
  });
});

describe("screenshots", () => {
  for (const viewport of ["desktop", "mobile"] as const) {
    for (const theme of ["light", "dark"] as const) {
      test(`sign-in and overview at ${VIEWPORTS[viewport].width} px, ${theme}`, async () => {
        const page = await openPage({ viewport, theme });
        await page.goto(`${stackgate.baseUrl}/sign-in`);
        await hydrated(page);
        await saveScreenshot(page, "sign-in", theme);
        await fillSignIn(page, stackgate.admin.password);
        await page.waitForURL(`${stackgate.baseUrl}/`);
        await hydrated(page);
        await saveScreenshot(page, "overview", theme);

        await page.goto(`${stackgate.baseUrl}/design-system`);
        await hydrated(page);
        await saveScreenshot(page, "design-system", theme);

        if (viewport === "mobile") {
          const menuButton = page.getByRole("button", { name: "Menu", exact: true });
          await menuButton.click();
          await expect(menuButton.getAttribute("aria-expanded")).resolves.toBe("true");
          await page
            .getByRole("navigation", { name: "Main" })
            .getByRole("link", { name: "Security" })
            .click();
          await page.waitForURL(`${stackgate.baseUrl}/security`);
          await hydrated(page);
          await menuButton.click();
          await saveScreenshot(page, "security-menu-open", theme);
        }
      });
    }
  }
});

describe("without a backend", () => {
  test("every page is a clear 503, not a hang (with the demo banner and version when set)", async () => {
    const frontend = await startFrontend({
      backendUrl: UNREACHABLE_URL,
      env: { STACKGATE_DEMO: "1", STACKGATE_VERSION: "9.8.7" },
    });
    try {
      for (const [viewport, theme] of [
        ["desktop", "light"],
        ["mobile", "dark"],
      ] as const) {
        const page = await browser.openPage({ viewport, theme, baseUrl: frontend.url });
        const response = await page.goto(`${frontend.url}/stacks`);
        expect(response?.status()).toBe(503);
        await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(
          "The Stackgate backend is not responding",
        );
        await page.getByText("Stackgate is talking to a simulated Komodo").waitFor();
        await page.getByText("Version 9.8.7").waitFor();
        await saveScreenshot(page, "backend-unavailable", theme);
      }
    } finally {
      await frontend.stop();
    }
  });
});
