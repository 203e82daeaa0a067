import { afterAll, beforeAll, expect, test } from "vitest";
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

test("the API reference renders under the gateway's CSP, with nothing loaded from outside", async () => {
  const page = await browser.openPage({ baseUrl: stackgate.baseUrl });
  const outside: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(stackgate.baseUrl) && !request.url().startsWith("data:"))
      outside.push(request.url());
  });
  await page.goto(`${stackgate.baseUrl}/reference`);
  await page.getByRole("heading", { name: "Stackgate API" }).first().waitFor({ timeout: 30_000 });
  await page.getByText("List your API keys").first().waitFor();
  await saveScreenshot(page, "reference-desktop", "light");
  expect(outside).toEqual([]);
  expect(browser.takeErrors()).toEqual([]);
});
