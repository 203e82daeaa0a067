import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type AxeViolation, axeViolations, describeViolations } from "./axe.ts";
import { saveScreenshot, startBrowser, type TestBrowser } from "./browser.ts";
import { type Stackgate, startStackgate } from "./harness.ts";

let stackgate: Stackgate;
let browser: TestBrowser;

beforeAll(async () => {
  [stackgate, browser] = await Promise.all([startStackgate(), startBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await stackgate?.stop();
});

/** CSP violations in the page, recorded from before its first script. */
async function watchViolations(page: Page) {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
}

test("the API reference renders under the gateway's CSP, with nothing loaded from outside", async () => {
  const page = await browser.openPage({ baseUrl: stackgate.baseUrl });
  const violations = await watchViolations(page);
  const outside: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(stackgate.baseUrl) && !request.url().startsWith("data:"))
      outside.push(request.url());
  });
  await page.goto(`${stackgate.baseUrl}/reference`);
  await page.getByRole("heading", { name: "Stackgate API" }).first().waitFor({ timeout: 30_000 });
  await page.getByText("List your API keys").first().waitFor();
  // Features that load lazily (an operation's example, the search) are asked for too.
  await page.getByText("List your API keys").first().click();
  await page.keyboard.press("Control+k");
  await page.keyboard.press("Escape");
  await page.getByText("Powered by Scalar").waitFor();
  await saveScreenshot(page, "reference-desktop", "light");
  expect(outside).toEqual([]);
  expect(await violations()).toEqual([]);
  expect(browser.takeErrors()).toEqual([]);
});

test("the API reference offers none of Scalar's cloud features", async () => {
  const page = await browser.openPage({ baseUrl: stackgate.baseUrl });
  await page.goto(`${stackgate.baseUrl}/reference`);
  await page.getByText("List your API keys").first().waitFor({ timeout: 30_000 });
  // The sidebar's footer, where the client and MCP buttons would be, is rendered.
  await page.getByText("Powered by Scalar").waitFor();
  // On a local address Scalar shows these unless told not to: Ask AI uploads the document to Scalar.
  const text = await page.locator("body").innerText();
  for (const cloudFeature of ["Ask AI", "MCP", "Deploy your documentation", "Share", "Open API Client"]) {
    expect(text, cloudFeature).not.toContain(cloudFeature);
  }
  expect(await page.locator(".agent-button-container, .ask-agent-scalar-input").count()).toBe(0);
  expect(await page.getByRole("button", { name: /^(deploy|share)$/i }).count()).toBe(0);
  expect(browser.takeErrors()).toEqual([]);
});

/**
 * What remains inside Scalar (README, known limits): its code blocks' copy buttons have no name. They
 * are told apart by their class, so any other unnamed button still fails.
 */
async function outsideScalarLimits(page: Page, violations: AxeViolation[]): Promise<AxeViolation[]> {
  const remaining: AxeViolation[] = [];
  for (const violation of violations) {
    if (violation.rule !== "button-name") {
      remaining.push(violation);
      continue;
    }
    const elements: string[] = [];
    for (const element of violation.elements) {
      const selector = element.split(" — ")[0] ?? "";
      const isCopyButton = await page.evaluate(
        (target) => document.querySelector(target)?.matches(".scalar-code-copy") ?? false,
        selector,
      );
      if (!isCopyButton) elements.push(element);
    }
    if (elements.length > 0) remaining.push({ ...violation, elements });
  }
  return remaining;
}

test("the API reference passes axe in Stackgate's colours, light and dark, on a laptop and a phone", async () => {
  const found: string[] = [];
  for (const [viewport, scheme] of [
    ["desktop", "light"],
    ["mobile", "light"],
    ["desktop", "dark"],
  ] as const) {
    const page = await browser.openPage({ baseUrl: stackgate.baseUrl, viewport });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${stackgate.baseUrl}/reference`);
    await page.getByRole("heading", { name: "Stackgate API" }).first().waitFor({ timeout: 30_000 });
    await page.locator(`body.${scheme}-mode`).waitFor();
    await page.locator(".scalar-code-block").first().waitFor();
    const violations = await outsideScalarLimits(page, await axeViolations(page));
    found.push(...describeViolations(`/reference at ${viewport} width, ${scheme}`, violations));
  }
  expect(found, `axe found:\n${found.join("\n")}`).toEqual([]);
  expect(browser.takeErrors()).toEqual([]);
});
