/**
 * A deploy run's page (issue 31): what went out (digests before and after, "no change", a
 * repository's commit), whether it stayed up (watching, stable, unstable with the reason), and every
 * step's output, filled in live while it runs; reached from the history, a stack's page and the
 * overview; at 1280 and 375 px, both themes, English and Spanish, under axe. Also the history's image
 * filter and a stack's services as they run now. The backend watches deploys for a few seconds only.
 */
import type { StackSeed } from "@stackgate/simulators";
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { axeViolations, describeViolations } from "./axe.ts";
import { holdRequests, hydrated, saveScreenshot } from "./browser.ts";
import { adminRequest, callAsAdmin } from "./komodo-setup.ts";
import { overflowing } from "./scenario.ts";
import { stackWorldOfThisFile } from "./stack-world.ts";

const SETTLE_SECONDS = 6;

/** A failure long enough that its stage's output scrolls inside its box. */
const LONG_ERROR = [
  "Error response from daemon: driver failed programming external connectivity on endpoint",
  ...Array.from(
    { length: 60 },
    (_, line) => `outline-outline-1 | retry ${line + 1}: port 3000 is already allocated`,
  ),
].join("\n");

const STACKS: StackSeed[] = [
  {
    name: "web",
    services: [
      { service: "web", image: "nginx:1.27" },
      { service: "cache", image: "redis:7.4-alpine" },
    ],
  },
  { name: "docs", services: [{ service: "docs", image: "ghcr.io/acme/docs:2.0" }] },
  {
    name: "outline",
    state: "down",
    services: [{ service: "outline", image: "outlinewiki/outline:0.80.2" }],
    faults: { failWith: LONG_ERROR },
  },
  {
    name: "crashy",
    services: [{ service: "worker", image: "ghcr.io/acme/worker:3.1" }],
    faults: { afterDeploy: "crash-loop" },
  },
  {
    name: "site",
    services: [{ service: "site", image: "ghcr.io/acme/site:1.0" }],
    repository: {
      deployed: { hash: "a1b2c3d", message: "First page" },
      latest: { hash: "e4f5a6b", message: "Add the pricing page" },
    },
  },
  { name: "slow", services: [{ service: "api", image: "ghcr.io/acme/api:5.2" }] },
];

const world = stackWorldOfThisFile({
  stacks: STACKS,
  backendEnv: { SETTLE_SECONDS: String(SETTLE_SECONDS), SETTLE_CHECK_SECONDS: "0.5" },
});

interface Change {
  service: string;
  image: string;
  from: string | null;
  to: string | null;
}
interface FinishedRun {
  id: string;
  success: boolean;
  changes: Change[];
  settle: { state: string; reason: string | null } | null;
}

const short = (digest: string) => `${digest.replace(/^sha256:/, "").slice(0, 8)}…`;

/** A deploy as a person makes it (the answer comes when Komodo has finished), and its run's id. */
async function deploy(stack: string, action: string): Promise<string> {
  await callAsAdmin(world().stackgate, "POST", "/api/v0/deploy", { stack, action });
  const { history } = (await adminRequest(
    world().stackgate,
    "GET",
    `/api/v0/history?stack=${stack}&limit=1`,
  )) as { history: { id: string }[] };
  if (!history[0]) throw new Error(`no history entry for ${stack}`);
  return history[0].id;
}

/** A deploy as a pipeline starts it: answered at once (202) with its run, which goes on meanwhile. */
async function startDeploy(stack: string, action: string): Promise<string> {
  const response = await fetch(`${world().stackgate.baseUrl}/api/v0/deploy`, {
    method: "POST",
    headers: { "x-api-key": world().apiKey, "content-type": "application/json", prefer: "respond-async" },
    body: JSON.stringify({ stack, action }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { run: { id: string } }).run.id;
}

async function runOf(id: string): Promise<FinishedRun> {
  return ((await adminRequest(world().stackgate, "GET", `/api/v0/deploy/runs/${id}`)) as { run: FinishedRun })
    .run;
}

async function settled(id: string): Promise<FinishedRun> {
  await expect
    .poll(async () => (await runOf(id)).settle?.state, { timeout: (SETTLE_SECONDS + 10) * 1000 })
    .not.toBe("watching");
  return runOf(id);
}

const openRun = (id: string, options = {}) => world().openSignedIn(`/runs/${id}`, options);
const changesOf = (page: Page) => page.getByRole("list", { name: "Each service before and after" });
const stagesOf = (page: Page) => page.getByRole("region", { name: "Steps and their output" });
const settleOf = (page: Page) => page.getByRole("region", { name: "Did it stay up?" });

async function expectClean(page: Page, state: string) {
  const lines = describeViolations(state, await axeViolations(page));
  expect(lines, `axe found:\n${lines.join("\n")}`).toEqual([]);
  expect(await overflowing(page), state).toEqual([]);
}

let webRun = "";
let docsRun = "";

describe("what went out", () => {
  test("a pull + redeploy with an update shows both digests of the changed service, the other the same", async () => {
    world().komodo.setService("web", "web", { updateAvailable: true });
    webRun = await deploy("web", "pull-redeploy");
    const run = await runOf(webRun);
    const web = run.changes.find((change) => change.service === "web")!;
    const cache = run.changes.find((change) => change.service === "cache")!;
    expect(web.from).toMatch(/^sha256:/);
    expect(web.to).not.toBe(web.from);

    for (const viewport of ["desktop", "mobile"] as const) {
      const page = await openRun(webRun, { viewport });
      await page.getByRole("heading", { level: 1, name: "Pull + Redeploy of web" }).waitFor();
      const item = changesOf(page).getByRole("listitem").filter({ hasText: "nginx:1.27" });
      await item.getByText(short(web.from!), { exact: true }).waitFor();
      await item.getByText(short(web.to!), { exact: true }).waitFor();
      await item.getByText("Changed", { exact: true }).waitFor();
      // The whole digest on hover, and copyable.
      expect(await item.getByText(short(web.to!)).getAttribute("title")).toBe(web.to);
      await item.getByRole("button", { name: "Copy the digest of web after" }).waitFor();
      const same = changesOf(page).getByRole("listitem").filter({ hasText: "redis:7.4-alpine" });
      await same.getByText("Same", { exact: true }).waitFor();
      await same.getByText(short(cache.to!), { exact: true }).first().waitFor();
      await page.getByText("Succeeded", { exact: true }).first().waitFor();
      await expectClean(page, `pull-redeploy run at ${viewport}`);
      await saveScreenshot(page, "run-changed", "light");
    }
  });

  test("a redeploy of the same images says 'no change'; its watch counts down, then ends stable, live", async () => {
    docsRun = await startDeploy("docs", "redeploy");
    await expect.poll(async () => (await runOf(docsRun)).success, { timeout: 15_000 }).toBe(true);
    const page = await openRun(docsRun, { theme: "dark" });
    await page.getByText("No change", { exact: true }).waitFor();
    await page.getByText("Every service runs the same image as before.").waitFor();
    // Watched for SETTLE_SECONDS after it succeeded: the time left ticks, then the verdict arrives.
    const watching = settleOf(page).getByText(/^0:0\d left$/);
    if ((await runOf(docsRun)).settle?.state === "watching") await watching.waitFor();
    await settleOf(page)
      .getByText(`Stable: its services stayed up for 0:0${SETTLE_SECONDS}`)
      .waitFor({ timeout: (SETTLE_SECONDS + 10) * 1000 });
    await expectClean(page, "redeploy run, dark");
    await saveScreenshot(page, "run-no-change", "dark");
  });

  test("a repository stack's run names its commit before and after, with the message", async () => {
    const id = await deploy("site", "redeploy");
    const page = await openRun(id);
    const changes = page.getByRole("region", { name: "What changed" });
    await changes.getByText("a1b2c3d", { exact: true }).waitFor();
    await changes.getByText("e4f5a6b", { exact: true }).waitFor();
    await changes.getByText("Add the pricing page").waitFor();
  });
});

describe("a failed run", () => {
  test("opens its failed step with the stderr, scrollable and copyable by keyboard; the steps that passed stay closed", async () => {
    const id = await deploy("outline", "redeploy");
    const page = await openRun(id);
    await page
      .context()
      .grantPermissions(["clipboard-read", "clipboard-write"], { origin: world().stackgate.baseUrl });
    await page.getByText("Why it failed").waitFor();

    const stages = stagesOf(page);
    const failed = stages.locator("details").filter({ hasText: "Compose Up" });
    await expect(failed.getAttribute("open")).resolves.toBe("");
    await expect(failed.locator("summary").innerText()).resolves.toContain("Failed");
    const output = failed.getByRole("region", { name: "Progress and messages (stderr) of Compose Up" });
    await expect(output.innerText()).resolves.toContain("port 3000 is already allocated");
    // stderr is not an error by itself: shown as any output, the failure said by the step's mark.
    const [outputColour, pageColour] = await output.evaluate((pre) => [
      getComputedStyle(pre).color,
      getComputedStyle(document.body).color,
    ]);
    expect(outputColour).toBe(pageColour);

    const pull = stages.locator("details").filter({ hasText: "Compose Pull" });
    await expect(pull.getAttribute("open")).resolves.toBeNull();
    await expect(pull.locator("summary").innerText()).resolves.toContain("Succeeded");

    // Long output scrolls inside its box, from the keyboard too.
    await output.focus();
    await page.keyboard.press("PageDown");
    await expect.poll(() => output.evaluate((pre) => pre.scrollTop)).toBeGreaterThan(0);
    await failed
      .getByRole("button", { name: "Copy the Progress and messages (stderr) of Compose Up" })
      .click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(LONG_ERROR);

    // A closed step opens from the keyboard.
    await pull.locator("summary").focus();
    await page.keyboard.press("Enter");
    await expect(pull.getAttribute("open")).resolves.toBe("");
    await settleOf(page).getByText("Not watched: the deploy failed").waitFor();
    await expectClean(page, "failed run");
    await saveScreenshot(page, "run-failed", "light");

    const phone = await openRun(id, { viewport: "mobile", theme: "dark" });
    await stagesOf(phone).getByText("port 3000 is already allocated").first().waitFor();
    await expectClean(phone, "failed run at 375 px");
    await saveScreenshot(phone, "run-failed", "dark");
  });

  test("an unknown run says so and leads to the history", async () => {
    const page = await openRun("no-such-run");
    await page.getByText("No run with the id “no-such-run”").waitFor();
    expect(await page.getByRole("link", { name: "Open the history" }).getAttribute("href")).toBe("/history");
  });
});

describe("a deploy that does not stay up", () => {
  test("ends unstable with its reason, marked apart from failures in the run, the history, the stack and the overview", async () => {
    const id = await deploy("crashy", "redeploy");
    const page = await openRun(id, { viewport: "mobile" });
    await settleOf(page)
      .getByText(/^Unstable: worker (restarted \d+ times?|is restarting)$/)
      .waitFor({ timeout: (SETTLE_SECONDS + 10) * 1000 });
    await page.getByText("Unstable", { exact: true }).first().waitFor();
    await expectClean(page, "unstable run at 375 px");
    await saveScreenshot(page, "run-unstable", "light");
    const run = await runOf(id);
    expect(run).toMatchObject({ success: true, settle: { state: "unstable" } });

    for (const viewport of ["desktop", "mobile"] as const) {
      const history = await world().openSignedIn("/history", { viewport });
      const entry = history
        .getByRole(viewport === "desktop" ? "row" : "listitem")
        .filter({ has: history.getByRole("link", { name: "crashy", exact: true }) })
        .first();
      const mark = entry.getByRole("link", { name: /^Unstable: the redeploy of crashy, .+ \(details\)$/ });
      await mark.waitFor();
      expect(await mark.getAttribute("href")).toBe(`/runs/${id}`);
      await entry.getByText(run.settle!.reason!, { exact: false }).waitFor();
      await expect(entry.getByText("Failed", { exact: true }).count()).resolves.toBe(0);
      await expectClean(history, `history with an unstable deploy at ${viewport}`);
    }

    const stack = await world().openSignedIn("/stacks/crashy");
    await stack.getByText("Deploy unstable", { exact: true }).waitFor();

    const overview = await world().openSignedIn("/");
    await overview.getByRole("region", { name: "Deploys" }).getByText("Unstable").waitFor();
    const problems = overview.getByRole("region", { name: "Recent problems" });
    await problems.getByRole("link", { name: /^Unstable: the redeploy of crashy/ }).waitFor();
    await problems.getByText(run.settle!.reason!).waitFor();
    await saveScreenshot(overview, "overview-unstable", "light");
  });
});

describe("while it runs", () => {
  test("the run's page fills in live as each step's output arrives, then shows its outcome", async () => {
    world().komodo.faults.setStack("slow", { holdUpdates: true });
    try {
      const id = await startDeploy("slow", "pull-redeploy");
      await world().komodo.whenHeld("slow");
      const page = await world().openPage({ signedInTo: world().stackgate });
      const stream = page.waitForResponse(
        (response) => new URL(response.url()).pathname === "/rpc/deploy/events",
      );
      await page.goto(`${world().stackgate.baseUrl}/runs/${id}`);
      await hydrated(page);
      await stream;
      await page.getByText("Pulling the images").waitFor();
      await stagesOf(page).getByText("Komodo's first step is under way", { exact: false }).waitFor();
      await expectClean(page, "running run");
      await saveScreenshot(page, "run-running", "light");
      // Only the live event can bring the pull's output now: the next step is held in Komodo.
      const reads = await holdRequests(page, "**/rpc/deploy/getRunLogs");
      world().komodo.releaseUpdates("slow");
      await world().komodo.whenHeld("slow");
      const pull = stagesOf(page).locator("details").filter({ hasText: "Compose Pull" });
      await pull.waitFor();
      await page.getByText("Taking the stack down").waitFor();
      await page.getByText("Running", { exact: true }).first().waitFor();
      reads();
      await page.unrouteAll();

      world().komodo.faults.setStack("slow", { holdUpdates: undefined });
      world().komodo.releaseUpdates("slow");
      // "Running for" becomes "Took" once it has finished.
      await page.getByText("Took", { exact: true }).waitFor({ timeout: 15_000 });
      await expect(page.getByText("Running", { exact: true }).count()).resolves.toBe(0);
      await stagesOf(page).locator("details").filter({ hasText: "Compose Up" }).waitFor();
      await page.getByRole("region", { name: "What changed" }).getByText("ghcr.io/acme/api:5.2").waitFor();
    } finally {
      world().komodo.faults.setStack("slow", { holdUpdates: undefined });
      world().komodo.releaseUpdates("slow");
    }
  });
});

describe("the history", () => {
  test("shows what each deploy changed in short, and filters to the deploys that changed an image, in the address", async () => {
    const { to } = (await runOf(webRun)).changes.find((change) => change.service === "web")!;
    const page = await world().openSignedIn("/history");
    const table = page.getByRole("table", { name: "Deploy history" });
    const webRow = table
      .getByRole("row")
      .filter({ has: page.getByRole("link", { name: "web", exact: true }) });
    await webRow.getByText(short(to!), { exact: true }).waitFor();
    await webRow.getByText("nginx:1.27", { exact: true }).waitFor();
    const docsRow = table
      .getByRole("row")
      .filter({ has: page.getByRole("link", { name: "docs", exact: true }) });
    await docsRow.getByText("No change", { exact: true }).waitFor();
    expect(
      await docsRow.getByRole("link", { name: /^Succeeded: the redeploy of docs/ }).getAttribute("href"),
    ).toBe(`/runs/${docsRun}`);

    await page.getByLabel("Image changed").selectOption("nginx:1.27");
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    await table.getByRole("link", { name: "web", exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get("image")).toBe("nginx:1.27");
    await saveScreenshot(page, "history-image-filter", "light");

    // A shared address keeps the filter; an image no deploy changed finds nothing.
    const shared = await world().openSignedIn("/history?image=redis%3A7.4-alpine", { viewport: "mobile" });
    await shared.getByText("No deploys match these filters").waitFor();
    await expect(shared.getByLabel("Image changed").inputValue()).resolves.toBe("redis:7.4-alpine");
    await expectClean(shared, "history filtered by image at 375 px");
  });
});

describe("a stack's page", () => {
  test("shows what each service runs now, since when and from which deploy", async () => {
    const { to } = (await runOf(webRun)).changes.find((change) => change.service === "web")!;
    for (const viewport of ["desktop", "mobile"] as const) {
      const page = await world().openSignedIn("/stacks/web", { viewport });
      const services =
        viewport === "desktop"
          ? page
              .getByRole("table", { name: "Services of web" })
              .getByRole("row")
              .filter({ hasText: "nginx:1.27" })
          : page.getByRole("listitem").filter({ hasText: "nginx:1.27" });
      await services.getByText(short(to!), { exact: true }).waitFor();
      await services.getByText("Running", { exact: true }).waitFor();
      const since = services.getByRole("link", { name: /^deployed / });
      expect(await since.getAttribute("href")).toBe(`/runs/${webRun}`);
      // The stack's own deploys open their runs too.
      const recent = page.getByRole("table", { name: "Recent deploys of web" });
      if (viewport === "desktop") {
        expect(
          await recent
            .getByRole("link", { name: /^Succeeded: the pull and redeploy of web/ })
            .getAttribute("href"),
        ).toBe(`/runs/${webRun}`);
      }
      await expectClean(page, `stack page at ${viewport}`);
      await saveScreenshot(page, "stack-running-now", "light");
    }
  });
});

describe("in Spanish", () => {
  test("the run reads as a Spanish speaker would write it, in both themes and widths", async () => {
    await settled(webRun);
    for (const viewport of ["desktop", "mobile"] as const) {
      for (const theme of ["light", "dark"] as const) {
        const page = await openRun(webRun, { lang: "es", viewport, theme });
        await page.getByRole("heading", { level: 1, name: "Descarga y redespliegue de web" }).waitFor();
        await page
          .getByRole("region", { name: "Qué ha cambiado" })
          .getByText("Cambiado", { exact: true })
          .waitFor();
        await page
          .getByRole("region", { name: "¿Se ha mantenido en pie?" })
          .getByText(/^Estable/)
          .waitFor();
        await page.getByRole("region", { name: "Pasos y su salida" }).getByText("Compose Up").waitFor();
        await expectClean(page, `Spanish run at ${viewport}, ${theme}`);
        await saveScreenshot(page, "run-es", theme);
      }
    }
  });
});
