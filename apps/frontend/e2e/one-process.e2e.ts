/**
 * The whole service as the one process `npm start` runs (apps/gateway/src/one-process.ts), and as
 * the three processes compose.yml runs, with the real dashboard built: a person signs in through
 * the form, sees the stacks Komodo has, watches a pipeline's deploy arrive live (the dashboard's
 * event stream, through the gateway to the backend in the same process, or in the next), and the
 * assets come compressed and cacheable, all from one port. The other browser tests run on the one
 * process.
 */
import { request } from "node:http";
import {
  demoStacks,
  type KomodoSimulator,
  standInTrivyPath,
  startKomodoSimulator,
} from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hydrated, startBrowser, type TestBrowser } from "./browser.ts";
import { type Stackgate, startStackgate } from "./harness.ts";
import { connectKomodo, createApiKey, deployWithKey } from "./komodo-setup.ts";

describe.each(["one", "split"] as const)("the %s layout", (layout) => {
  let komodo: KomodoSimulator;
  let stackgate: Stackgate;
  let browser: TestBrowser;
  let apiKey: string;

  beforeAll(async () => {
    komodo = await startKomodoSimulator({ stacks: demoStacks() });
    [stackgate, browser] = await Promise.all([
      startStackgate({
        layout,
        env: { backend: { TRIVY_BIN: standInTrivyPath, SCANNER_SWEEP_DELAY_SECONDS: "3600" } },
      }),
      startBrowser(),
    ]);
    await connectKomodo(stackgate, komodo);
    apiKey = await createApiKey(stackgate, "pipeline");
  });
  afterAll(async () => {
    await browser?.close();
    await stackgate?.stop();
    await komodo?.close();
  });

  test("a person signs in through the form and sees a pipeline's deploy arrive live", async () => {
    const page = await browser.openPage({ baseUrl: stackgate.baseUrl });
    await page.goto(`${stackgate.baseUrl}/stacks`);
    await page.waitForURL(/\/sign-in\?next=%2Fstacks/);
    await hydrated(page);
    await page.getByLabel("Email").fill(stackgate.admin.email);
    await page.getByLabel("Password").fill(stackgate.admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/stacks$/);
    await hydrated(page);
    const row = page
      .getByRole("table", { name: "Stacks" })
      .getByRole("row")
      .filter({ has: page.getByRole("link", { name: "traefik", exact: true }) });
    await row.waitFor();

    komodo.faults.setStack("traefik", { updateDelayMs: 1_500 });
    const answer = deployWithKey(stackgate, apiKey, "traefik", "pull");
    await row.getByText("Pulling").waitFor();
    expect((await answer).status).toBe(200);
    await page
      .getByRole("region", { name: "Notifications" })
      .getByText("API Key: pipeline pulled the images of traefik")
      .waitFor();
    await row.getByText("Running", { exact: true }).waitFor();
    expect(await browser.finishTest()).toEqual([]);
  });

  test("the dashboard's assets come compressed once and cacheable for a year, pages with the gateway's headers", async () => {
    const html = await (await fetch(`${stackgate.baseUrl}/sign-in`)).text();
    const asset = /href="(\/_astro\/[^"]+\.css)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const head = await new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
      const call = request(
        `${stackgate.baseUrl}${asset}`,
        { headers: { "accept-encoding": "br" } },
        (res) => {
          res.resume();
          resolve(res.headers);
        },
      );
      call.on("error", reject);
      call.end();
    });
    expect(head["content-encoding"]).toBe("br");
    expect(head["cache-control"]).toBe("public, max-age=31536000, immutable");
    const signIn = await fetch(`${stackgate.baseUrl}/sign-in`);
    expect(signIn.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});
