/**
 * What a careless operator and a hostile upstream meet in the dashboard: stack names holding URL
 * characters, a scanner that is not installed, and a CSP that allows no inline script but Astro's own.
 */
import { type KomodoSimulator, startKomodoSimulator } from "@stackgate/simulators";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hydrated, startBrowser, type TestBrowser } from "./browser.ts";
import { type Stackgate, startStackgate } from "./harness.ts";
import { connectKomodo } from "./komodo-setup.ts";

/** Names a Komodo stack may carry that mean something in a URL (and one that looks like an escape). */
const AWKWARD_NAMES = ["a=b", "a&b", "a%b", "a%3Db", "a#b", "a?b", "with space"];
const IMAGE = "docker.io/library/redis:7.4-clean";

let komodo: KomodoSimulator;
let stackgate: Stackgate;
let browser: TestBrowser;

beforeAll(async () => {
  komodo = await startKomodoSimulator({
    stacks: [
      { name: "web", services: [{ service: "web", image: IMAGE }] },
      ...AWKWARD_NAMES.map((name) => ({ name, services: [{ service: "app", image: IMAGE }] })),
    ],
  });
  [stackgate, browser] = await Promise.all([
    // No Trivy anywhere: the Security page must say so once, not fail every image.
    startStackgate({ env: { backend: { TRIVY_BIN: "/nonexistent/trivy" } } }),
    startBrowser(),
  ]);
  await connectKomodo(stackgate, komodo);
});
afterEach(async () => {
  expect(await browser.finishTest()).toEqual([]);
});
afterAll(async () => {
  await browser?.close();
  await stackgate?.stop();
  await komodo?.close();
});

/** Records CSP violations in the page; set up before the first navigation. */
async function watchViolations(page: Page) {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI} ${event.sample}`),
    );
  });
  return () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
}

describe("stack names holding URL characters", () => {
  it.each(AWKWARD_NAMES)("%j opens from the stack list", async (name) => {
    const page = await browser.openPage({ baseUrl: stackgate.baseUrl, signedInTo: stackgate });
    await page.goto(`${stackgate.baseUrl}/stacks`);
    await hydrated(page);
    await page.getByRole("link", { name, exact: true }).first().click();
    await page.waitForURL((url) => url.pathname.startsWith("/stacks/") && url.pathname.length > 8);
    await hydrated(page);

    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(name);
    await page.getByText("Services (1)").waitFor();
    expect(await page.getByText("Komodo has no stack called").count()).toBe(0);
  });
});

describe("the scanner not installed", () => {
  it("is explained once on the Security page, with the fix, and no image is failed", async () => {
    const page = await browser.openPage({ baseUrl: stackgate.baseUrl, signedInTo: stackgate });
    await page.goto(`${stackgate.baseUrl}/security`);
    await hydrated(page);
    const notice = page.getByRole("status").filter({ hasText: "the scanner is not available" });
    await notice.waitFor({ timeout: 20_000 });
    expect(await notice.count()).toBe(1);
    await expect(notice.textContent()).resolves.toContain(
      "Trivy not found (TRIVY_BIN=/nonexistent/trivy): install Trivy and run `trivy server",
    );
    expect(await page.getByText("Failed", { exact: true }).count()).toBe(0);
    expect(await page.getByText("The scanner is not reachable").count()).toBe(0);
  });
});

describe("the content security policy", () => {
  it("allows no inline script but Astro's own", async () => {
    const response = await fetch(`${stackgate.baseUrl}/sign-in`);
    await response.body?.cancel();
    const scriptSrc = response.headers
      .get("content-security-policy")
      ?.split(";")
      .map((directive) => directive.trim())
      .find((directive) => directive.startsWith("script-src "));
    expect(scriptSrc).toBeDefined();
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(scriptSrc).not.toContain("'unsafe-eval'");
  });

  it("blocks nothing the dashboard pages run", async () => {
    const paths = [
      "/",
      "/stacks",
      `/stacks/${encodeURIComponent("a=b")}`,
      "/history",
      "/security",
      `/security?image=${encodeURIComponent(IMAGE)}`,
      "/settings",
      "/no-such-page",
    ];
    for (const path of paths) {
      const page = await browser.openPage({ baseUrl: stackgate.baseUrl, signedInTo: stackgate });
      const violations = await watchViolations(page);
      await page.goto(`${stackgate.baseUrl}${path}`);
      // Hydration runs Astro's inline island scripts: blocked, the islands would stay server-rendered.
      await hydrated(page);
      expect(await violations(), path).toEqual([]);
    }
    const signedOut = await browser.openPage({ baseUrl: stackgate.baseUrl });
    const violations = await watchViolations(signedOut);
    await signedOut.goto(`${stackgate.baseUrl}/sign-in`);
    await hydrated(signedOut);
    await signedOut.getByLabel("Email").fill(stackgate.admin.email);
    expect(await violations()).toEqual([]);
  });
});
