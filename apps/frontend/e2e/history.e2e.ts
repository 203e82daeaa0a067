import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { hydrated, type OpenPageOptions, saveScreenshot, startBrowser, type TestBrowser } from "./browser.ts";
import { callAsAdmin, callWithKey, connectKomodo, createApiKey, seedPastDeploys } from "./komodo-setup.ts";
import {
  endTestsOf,
  FAILING_DEPLOY_ERROR,
  overflowing,
  type Scenario,
  startScenario,
  tableScrollsSideways,
} from "./scenario.ts";

let scenario: Scenario;
let browser: TestBrowser;
let pipelineKey: string;

beforeAll(async () => {
  [scenario, browser] = await Promise.all([
    // Succeeded, not watched: the settle window's marks have their own tests (runs.e2e.ts).
    startScenario({ backendEnv: { SETTLE_SECONDS: "0" } }),
    startBrowser(),
  ]);
  await connectKomodo(scenario.stackgate, scenario.komodo);
  pipelineKey = await createApiKey(scenario.stackgate, "deploy-web");
});

endTestsOf(() => ({ browser, scenario }));

const baseUrl = () => scenario.stackgate.baseUrl;

async function openHistory(query = "", options: Partial<OpenPageOptions> = {}) {
  const page = await browser.openPage({ baseUrl: baseUrl(), signedInTo: scenario.stackgate, ...options });
  await page.goto(`${baseUrl()}/history${query}`);
  await hydrated(page);
  return page;
}

const table = (page: Page) => page.getByRole("table", { name: "Deploy history" });
const bodyRows = (page: Page) => table(page).locator("tbody tr");
const rowOf = (page: Page, stack: string) =>
  bodyRows(page).filter({ has: page.getByRole("link", { name: stack, exact: true }) });

async function deployAsPerson(stack: string, action: string) {
  return callAsAdmin(scenario.stackgate, "POST", "/api/v0/deploy", { stack, action });
}

function deployAsPipeline(stack: string, action: string) {
  return callWithKey(baseUrl(), pipelineKey, "POST", "/api/v0/deploy", { stack, action });
}

describe("before any deploy", () => {
  test("says what fills the history and links to the Stacks page", async () => {
    const page = await openHistory();
    await page.getByText("No deploys yet").waitFor();
    await page.getByText("Deploy from the Stacks page or a pipeline").waitFor();
    await expect(page.getByRole("link", { name: "Go to Stacks" }).getAttribute("href")).resolves.toBe(
      "/stacks",
    );
    await saveScreenshot(page, "history-empty", "light");
  });
});

describe("with deploys by people and pipelines", () => {
  beforeAll(async () => {
    expect((await deployAsPerson("web", "redeploy")).status).toBe(200);
    await expect(deployAsPipeline("docs", "pull")).resolves.toBe(200);
    await expect(deployAsPipeline("worker", "pull-redeploy")).resolves.toBe(502);
    expect((await deployAsPerson("billing", "pull")).status).toBe(200);
  });

  test("lists them newest first, each with who did it, the result and a readable failure", async () => {
    const page = await openHistory();
    await expect.poll(() => bodyRows(page).count()).toBe(4);
    const stacks = await bodyRows(page).locator("td:nth-child(3)").allTextContents();
    expect(stacks).toEqual(["billing", "worker", "docs", "web"]);

    const byPerson = rowOf(page, "web");
    await byPerson.getByRole("img", { name: "Person" }).waitFor();
    await byPerson.getByText("Ada Admin").waitFor();
    // Who exactly: a name anyone may copy, and the email nobody else has.
    await byPerson.getByText(scenario.stackgate.admin.email, { exact: true }).waitFor();
    await byPerson.getByText("Succeeded").waitFor();
    // The API's success message is Spanish by specification; people read theirs in their language.
    await byPerson.getByText("Redeployed web", { exact: true }).waitFor();
    await expect(
      table(page)
        .getByText(/Acción/)
        .count(),
    ).resolves.toBe(0);
    await expect(byPerson.getByRole("link", { name: "web", exact: true }).getAttribute("href")).resolves.toBe(
      "/stacks/web",
    );

    const failed = rowOf(page, "worker");
    await failed.getByRole("img", { name: "API key" }).waitFor();
    await failed.getByText("deploy-web", { exact: true }).waitFor();
    await failed.getByText(`key of ${scenario.stackgate.admin.email}`, { exact: true }).waitFor();
    await failed.getByText("Failed", { exact: true }).waitFor();
    const message = failed.locator("button[aria-expanded]");
    await expect(message.getAttribute("title")).resolves.toContain(FAILING_DEPLOY_ERROR);
    await message.focus();
    await page.keyboard.press("Enter");
    await expect(message.getAttribute("aria-expanded")).resolves.toBe("true");
    expect((await message.boundingBox())?.height).toBeGreaterThan(30);
    await saveScreenshot(page, "history-expanded", "light");
  });

  test("offers every stack Komodo lists in the stack filter, also one with no deploys loaded", async () => {
    scenario.komodo.addStack({ name: "never-deployed" });
    const page = await openHistory();
    const stackFilter = page.getByLabel("Stack", { exact: true });
    await stackFilter.locator("option", { hasText: "never-deployed" }).waitFor({ state: "attached" });
    await stackFilter.selectOption("never-deployed");
    await page.getByText("No deploys match these filters").waitFor();
    expect(new URL(page.url()).searchParams.get("stack")).toBe("never-deployed");
  });

  test("filters by stack, result and person or pipeline, and keeps the filters in the address", async () => {
    const page = await openHistory();
    await page.getByLabel("Stack", { exact: true }).selectOption("worker");
    await expect.poll(() => bodyRows(page).count()).toBe(1);
    expect(new URL(page.url()).searchParams.get("stack")).toBe("worker");
    await page.getByLabel("Stack", { exact: true }).selectOption("");

    const result = page.getByRole("group", { name: "Result" });
    await result.getByRole("button", { name: "Failed" }).click();
    await expect.poll(() => bodyRows(page).count()).toBe(1);
    await result.getByRole("button", { name: "All" }).click();

    await page.getByLabel("By", { exact: true }).selectOption({ label: "Pipelines only" });
    await expect.poll(() => bodyRows(page).count()).toBe(2);
    await expect.poll(() => bodyRows(page).getByRole("img", { name: "Person" }).count()).toBe(0);
    await page.getByLabel("By", { exact: true }).selectOption({ label: "Ada Admin" });
    await expect.poll(() => bodyRows(page).count()).toBe(2);
    await result.getByRole("button", { name: "Failed" }).click();
    await page.getByText("No deploys match these filters").waitFor();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect.poll(() => bodyRows(page).count()).toBe(4);
    expect(new URL(page.url()).search).toBe("");

    const shared = await openHistory("?result=failed&actor=via%3AapiKey");
    await expect.poll(() => bodyRows(shared).count()).toBe(1);
    await expect(shared.getByLabel("By", { exact: true }).inputValue()).resolves.toBe("via:apiKey");
  });

  test("shows a pipeline's deploy while it runs and adds it when it finishes, without a reload", async () => {
    const page = await openHistory();
    await expect.poll(() => bodyRows(page).count()).toBe(4);
    scenario.komodo.faults.setStack("docs", { updateDelayMs: 2_500 });
    const deploy = deployAsPipeline("docs", "redeploy");

    const running = bodyRows(page).filter({ hasText: "Running" });
    await running.waitFor();
    await running.getByRole("img", { name: "API key" }).waitFor();
    await saveScreenshot(page, "history-running", "light");
    await expect(deploy).resolves.toBe(200);
    await running.waitFor({ state: "detached" });
    // In the same render: the running row becomes its result, it never vanishes in between.
    await expect(bodyRows(page).count()).resolves.toBe(5);
    await expect(bodyRows(page).first().textContent()).resolves.toMatch(
      /^Succeeded(now|.+ ago)docsRedeploydeploy-web/,
    );
    scenario.komodo.faults.setStack("docs", { updateDelayMs: undefined });
  });

  test("reads well at every width and theme, and in Spanish", async () => {
    for (const viewport of ["desktop", "mobile"] as const) {
      for (const theme of ["light", "dark"] as const) {
        const page = await openHistory("", { viewport, theme });
        // Phones get a compact list instead of a table that would scroll sideways.
        await page.getByRole(viewport === "desktop" ? "table" : "list", { name: "Deploy history" }).waitFor();
        // Both are rendered; CSS shows one and the other is out of the accessibility tree.
        await expect(
          page.getByRole(viewport === "desktop" ? "list" : "table", { name: "Deploy history" }).count(),
        ).resolves.toBe(0);
        await saveScreenshot(page, "history", theme);
        expect(await overflowing(page)).toEqual([]);
        if (viewport === "desktop") expect(await tableScrollsSideways(page, "Deploy history")).toBe(false);
      }
    }
    const page = await openHistory("?result=failed", { lang: "es" });
    await page.getByRole("heading", { level: 1, name: "Historial" }).waitFor();
    await page.getByRole("table", { name: "Historial de despliegues" }).getByText("Fallido").waitFor();
    await page.getByRole("img", { name: "Clave de API" }).first().waitFor();
    await saveScreenshot(page, "history-es", "light");
    await page.getByRole("button", { name: "Todos", exact: true }).click();
    await page
      .getByRole("table", { name: "Historial de despliegues" })
      .getByText("Imágenes de billing descargadas", { exact: true })
      .waitFor();
  });
});

/** How many actions the API lists for a query, following every page. */
async function countHistory(query: Record<string, string> = {}) {
  let count = 0;
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams(cursor ? { ...query, cursor } : query);
    const { status, body } = await callAsAdmin(scenario.stackgate, "GET", `/api/v0/history?${params}`);
    expect(status).toBe(200);
    count += body.history.length;
    cursor = body.nextCursor;
  } while (cursor);
  return count;
}

describe("with more than 100 actions", () => {
  beforeAll(() => {
    seedPastDeploys(scenario.stackgate, [
      // A stack whose every deploy is older than the newest 100 actions.
      { daysAgo: 40, stack: "legacy", success: false, message: "legacy failed" },
      { daysAgo: 41, stack: "legacy", success: true },
      ...Array.from({ length: 130 }, (_, index) => ({
        daysAgo: 1 + index / 1000,
        stack: "web",
        success: true,
        actor: "Ada Admin",
      })),
    ]);
  });

  test("the History page loads older pages down to the first action", async () => {
    const total = await countHistory();
    expect(total).toBeGreaterThan(130);
    const page = await openHistory();
    await expect.poll(() => bodyRows(page).count()).toBe(100);
    await page.getByText("The newest 100; older ones load below").waitFor();
    const loadOlder = page.getByRole("button", { name: "Load older" });
    await loadOlder.click();
    await expect.poll(() => bodyRows(page).count()).toBe(total);
    await page.getByText(`${total} in all`).waitFor();
    await expect(loadOlder.count()).resolves.toBe(0);
    await expect(bodyRows(page).last().textContent()).resolves.toContain("legacy");
  });

  test("filters are answered by the API, so old deploys of a stack are found at once", async () => {
    const page = await openHistory("?stack=legacy");
    await expect.poll(() => bodyRows(page).count()).toBe(2);
    await page.getByText("2 in all").waitFor();
    await page.getByRole("group", { name: "Result" }).getByRole("button", { name: "Failed" }).click();
    await expect.poll(() => bodyRows(page).count()).toBe(1);
    await bodyRows(page).getByText("legacy failed").waitFor();
    expect(new URL(page.url()).searchParams.get("result")).toBe("failed");
  });

  test("a stack's page lists that stack's deploys ten at a time, each in the page's language", async () => {
    const page = await browser.openPage({ baseUrl: baseUrl(), signedInTo: scenario.stackgate });
    await page.goto(`${baseUrl()}/stacks/web`);
    await hydrated(page);
    const recent = page.getByRole("table", { name: "Recent deploys of web" });
    await expect.poll(() => recent.locator("tbody tr").count()).toBe(10);
    await page.getByRole("button", { name: "Load older" }).click();
    await expect.poll(() => recent.locator("tbody tr").count()).toBe(20);
    await recent.getByText("Redeployed web").first().waitFor();
    await expect(recent.getByText(/Acción/).count()).resolves.toBe(0);
    await expect(page.getByRole("link", { name: "All history" }).getAttribute("href")).resolves.toBe(
      "/history?stack=web",
    );

    const spanish = await browser.openPage({
      baseUrl: baseUrl(),
      signedInTo: scenario.stackgate,
      lang: "es",
    });
    await spanish.goto(`${baseUrl()}/stacks/web`);
    await hydrated(spanish);
    await spanish
      .getByRole("table", { name: "Despliegues recientes de web" })
      .getByText("web redesplegado")
      .first()
      .waitFor();
  });

  test("a stack's page without deploys says so, whatever the length of the history", async () => {
    scenario.komodo.addStack({ name: "quiet" });
    const page = await browser.openPage({ baseUrl: baseUrl(), signedInTo: scenario.stackgate });
    await page.goto(`${baseUrl()}/stacks/quiet`);
    await hydrated(page);
    await page.getByText("No deploys of quiet yet.").waitFor();
  });
});
