import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { DEMO_DEPLOY_ERROR, startKomodoSimulator } from "@stackgate/simulators";
import type { Locator, Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { holdRequests, hydrated, saveScreenshot } from "./browser.ts";
import { repoRoot } from "./harness.ts";
import { connectKomodo, deployWithKey, disconnectKomodo } from "./komodo-setup.ts";
import { API_KEY_NAME, scansSettled, stackWorldOfThisFile } from "./stack-world.ts";

const world = stackWorldOfThisFile();

const table = (page: Page) => page.getByRole("table", { name: "Stacks" });
const bodyRows = (page: Page) => table(page).locator("tbody > tr");
const rowOf = (page: Page, stack: string) =>
  table(page)
    .getByRole("row")
    .filter({ has: page.getByRole("link", { name: stack, exact: true }) });
const toasts = (page: Page) => page.getByRole("region", { name: "Notifications" });
/** The world's 21 stacks in the phone's compact list: a screenful renders first, the rest as it scrolls. */
async function compactEntriesScrolledThrough(page: Page): Promise<Locator> {
  const entries = page.getByRole("list", { name: "Stacks" }).getByRole("listitem");
  await entries.first().waitFor();
  expect(await entries.count()).toBeLessThan(21);
  await entries.last().scrollIntoViewIfNeeded();
  await expect.poll(() => entries.count()).toBe(21);
  return entries;
}
const chip = (page: Page, label: string) =>
  page.getByRole("group", { name: "Show" }).getByRole("button", { name: new RegExp(`^${label} \\d+$`) });

async function openStacks(path = "/stacks", options = {}) {
  const page = await world().openSignedIn(path, options);
  await table(page).waitFor();
  return page;
}

async function firstCellTexts(page: Page, count: number): Promise<string[]> {
  return bodyRows(page).evaluateAll(
    (rows, n) => rows.slice(0, n).map((row) => row.querySelector("td")?.textContent ?? ""),
    count,
  );
}

async function stateText(row: Locator) {
  return (await row.locator("td").nth(1).textContent()) ?? "";
}

/** Whether part of the element is hidden: cut by its own box, or by a box around it that clips. */
function isCutOff(element: Locator): Promise<boolean> {
  return element.evaluate((target) => {
    if (target.scrollWidth > target.clientWidth) return true;
    const box = target.getBoundingClientRect();
    for (let around = target.parentElement; around; around = around.parentElement) {
      const style = getComputedStyle(around);
      if (style.overflowX === "visible") continue;
      const clip = around.getBoundingClientRect();
      const left = clip.left + Number.parseFloat(style.borderLeftWidth);
      const right = clip.right - Number.parseFloat(style.borderRightWidth);
      if (box.left < left - 0.5 || box.right > right + 0.5) return true;
    }
    return false;
  });
}

/** Each image reference in these elements: its value, whether it is cut, and the visible text around it. */
function imagesIn(cells: Locator) {
  return cells.evaluateAll((elements: HTMLElement[]) =>
    elements.flatMap((cell) => {
      const code = cell.querySelector("code");
      if (!code) return [];
      const image = code.textContent ?? "";
      return [
        { image, cut: code.scrollWidth > code.clientWidth, title: code.title, text: cell.innerText.trim() },
      ];
    }),
  );
}

describe("the stack list", () => {
  test("shows every stack with state, services and images, problems first, 15+ rows on a laptop screen", async () => {
    const page = await openStacks();
    await expect(bodyRows(page).count()).resolves.toBe(21);

    // Unhealthy and restarting stacks lead, then everything else by name.
    const leading = await firstCellTexts(page, 4);
    expect(leading.slice(0, 3).sort()).toEqual(["immich", "loki", "nextcloud"]);
    expect(leading[3]).toBe("authentik");

    const gitea = rowOf(page, "gitea");
    expect(await stateText(gitea)).toBe("Running");
    await gitea.getByText("gitea/gitea:1.22.3").waitFor();
    await gitea.getByText("+1").waitFor();
    await gitea.getByText("Update", { exact: true }).waitFor();
    expect(await stateText(rowOf(page, "minio"))).toBe("Down");
    expect(await stateText(rowOf(page, "nextcloud"))).toBe("Unhealthy");
    expect(await stateText(rowOf(page, "immich"))).toBe("Restarting");

    // The services of a stack unfold under its row, each image with its own copy button.
    await gitea.getByRole("button", { name: "Show the services of gitea" }).click();
    await page.getByRole("button", { name: "Copy the image of db in gitea" }).waitFor();
    await page.getByRole("button", { name: "Hide the services of gitea" }).click();

    // Density: at least 15 whole rows with their actions inside the 1280×800 viewport.
    const visibleRows = await bodyRows(page).evaluateAll(
      (rows) =>
        rows.filter((row) => {
          const box = row.getBoundingClientRect();
          return box.top >= 0 && box.bottom <= window.innerHeight;
        }).length,
    );
    expect(visibleRows).toBeGreaterThanOrEqual(15);
    await saveScreenshot(page, "stacks-list", "light");
  });

  test("image references use the room their row has, and are cut only where it has none", async () => {
    const page = await openStacks();
    // At 1280 px the image comes before the service's name: an image is cut only with nothing beside it.
    const mainRows = await imagesIn(bodyRows(page).locator("td:nth-child(3)"));
    expect(mainRows).toHaveLength(21);
    for (const row of mainRows.filter((row) => row.cut)) {
      expect(row.text.startsWith(row.image), row.image).toBe(true);
      expect(row.title).toBe(row.image);
    }
    expect(mainRows.find((row) => row.image === "outlinewiki/outline:0.80.2")?.cut).toBe(false);

    // A service's row has no state: its image takes that room too.
    await rowOf(page, "immich").getByRole("button", { name: "Show the services of immich" }).click();
    const serviceRows = table(page)
      .locator("tbody > tr")
      .filter({ hasNot: page.getByRole("link") });
    const services = await imagesIn(serviceRows.locator("td:nth-child(2)"));
    expect(services.map((service) => service.image)).toEqual([
      "ghcr.io/immich-app/immich-server:v1.117.0",
      "ghcr.io/immich-app/immich-machine-learning:v1.117.0",
      "docker.io/redis:6.2-alpine",
    ]);
    expect(services.filter((service) => service.cut)).toEqual([]);

    // On a phone the image has its entry's whole line.
    const phone = await world().openSignedIn("/stacks", { viewport: "mobile" });
    const entries = await compactEntriesScrolledThrough(phone);
    const lines = await imagesIn(entries.locator("code").locator(".."));
    expect(lines.find((line) => line.image === "louislam/uptime-kuma:1.23.15")?.cut).toBe(false);
    const minio = lines.find((line) => line.image.startsWith("quay.io/minio/minio:"));
    expect(minio).toMatchObject({ cut: true, title: minio?.image });
  });

  test("marks images with critical and high vulnerabilities once scanned", async () => {
    await scansSettled(world());
    const page = await openStacks();
    const legacy = rowOf(page, "legacy");
    await legacy.getByText(/^\d+ critical$/).waitFor();
    // A private image cannot be pulled by the scanner: the stack still lists, its scan says so.
    const billing = rowOf(page, "billing");
    await billing.getByRole("button", { name: "Show the services of billing" }).click();
    await page.getByText("Scan failed").waitFor();
  });

  test("searches names, services and images; filter chips count what the search keeps", async () => {
    const page = await openStacks();
    await expect(chip(page, "All").textContent()).resolves.toBe("All 21");
    await expect(chip(page, "Running").textContent()).resolves.toBe("Running 14");
    await expect(chip(page, "Stopped").textContent()).resolves.toBe("Stopped 4");
    await expect(chip(page, "Problems").textContent()).resolves.toBe("Problems 3");
    await expect(chip(page, "Update available").textContent()).resolves.toBe("Update available 6");

    await chip(page, "Problems").click();
    await expect(bodyRows(page).count()).resolves.toBe(3);
    await expect(chip(page, "Problems").getAttribute("aria-pressed")).resolves.toBe("true");

    await chip(page, "All").click();
    await page.getByRole("searchbox", { name: "Search stacks" }).fill("postgres");
    // gitea and authentik use a postgres image; the postgres stack is named so.
    await expect(firstCellTexts(page, 10)).resolves.toEqual(["authentik", "gitea", "postgres"]);
    await expect(chip(page, "All").textContent()).resolves.toBe("All 3");
    await page.getByRole("searchbox", { name: "Search stacks" }).fill("immich-machine");
    await expect(firstCellTexts(page, 10)).resolves.toEqual(["immich"]);

    // Search and filter live in the address: a reload (or a shared link) keeps them.
    await chip(page, "Update available").click();
    expect(new URL(page.url()).search).toBe("?q=immich-machine&filter=updates");
    await page.reload();
    await hydrated(page);
    await expect(firstCellTexts(page, 10)).resolves.toEqual(["immich"]);

    await page.getByRole("searchbox", { name: "Search stacks" }).fill("no-such-thing");
    await page.getByText("No stack matches").waitFor();
    await page.getByRole("button", { name: "Clear search and filter" }).click();
    await expect(bodyRows(page).count()).resolves.toBe(21);

    // "/" jumps to the search from anywhere on the page.
    await page.locator("body").click({ position: { x: 5, y: 300 } });
    await page.keyboard.press("/");
    await expect(
      page
        .getByRole("searchbox", { name: "Search stacks" })
        .evaluate((input) => input === document.activeElement),
    ).resolves.toBe(true);
  });
});

describe("deploying from the list", () => {
  test("confirms, shows the deploy live with its elapsed time and author, reports success, and returns to normal", async () => {
    world().komodo.faults.setStack("grafana", { updateDelayMs: 1_500 });
    const page = await openStacks();
    const grafana = rowOf(page, "grafana");

    await grafana.getByRole("button", { name: "Redeploy grafana", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Redeploy grafana?" });
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain("Komodo takes grafana down, stopping 1 service");
    // A destructive action: focus starts on Cancel.
    expect(
      await dialog.getByRole("button", { name: "Cancel" }).evaluate((b) => b === document.activeElement),
    ).toBe(true);
    await saveScreenshot(page, "stacks-confirm-redeploy", "light");
    await dialog.getByRole("button", { name: "Redeploy", exact: true }).click();
    await dialog.waitFor({ state: "hidden" });

    await grafana.getByText("Redeploying").waitFor();
    await grafana.getByTitle("Ada Admin").waitFor();
    await grafana.getByText(/^0:0[1-9]$/).waitFor();
    expect(await grafana.getByRole("button", { name: "Pull grafana", exact: true }).isDisabled()).toBe(true);
    await saveScreenshot(page, "stacks-deploying", "light");

    await toasts(page).getByText("Redeployed grafana").waitFor({ timeout: 15_000 });
    await grafana.getByText("Running", { exact: true }).waitFor();
    expect(await grafana.getByRole("button", { name: "Pull grafana", exact: true }).isEnabled()).toBe(true);
    const steps = world()
      .komodo.calls.filter(
        (call) => call.api === "execute" && (call.params as { stack?: string }).stack === "grafana",
      )
      .map((call) => call.type);
    expect(steps).toEqual(["DestroyStack", "DeployStack"]);
  });

  test("a running deploy's elapsed time is never cut, in either language, on a laptop or a phone", async () => {
    // The longest action's word and a pipeline's name beside the timer; the deploy stays running.
    world().komodo.faults.setStack("uptime-kuma", { holdUpdates: true });
    const answer = deployWithKey(world().stackgate, world().apiKey, "uptime-kuma", "pull-redeploy");
    try {
      await world().komodo.whenHeld("uptime-kuma");
      for (const viewport of ["desktop", "mobile"] as const) {
        for (const lang of ["en", "es"] as const) {
          const page = await world().openSignedIn("/stacks", { viewport, lang });
          if (viewport === "mobile") await compactEntriesScrolledThrough(page);
          const entry = page
            .getByRole(viewport === "desktop" ? "row" : "listitem")
            .filter({ has: page.getByRole("link", { name: "uptime-kuma", exact: true }) });
          const timer = entry.getByText(/^\d+:\d\d$/);
          await timer.waitFor();
          expect(await isCutOff(timer), `${viewport}, ${lang}`).toBe(false);
          // The action's word may give way, but says itself whole on hover.
          const word = lang === "en" ? "Pulling + redeploying" : "Descargando y redesplegando";
          await entry.getByTitle(word, { exact: true }).waitFor();
        }
      }
    } finally {
      world().komodo.faults.setStack("uptime-kuma", { holdUpdates: undefined });
      world().komodo.releaseUpdates("uptime-kuma");
    }
    expect((await answer).status).toBe(200);
  });

  test("a pull only pulls, and says so before it runs", async () => {
    const page = await openStacks();
    await rowOf(page, "pihole").getByRole("button", { name: "Pull pihole", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Pull the images of pihole?" });
    await expect(dialog.textContent()).resolves.toContain("Nothing is restarted");
    await dialog.getByRole("button", { name: "Pull", exact: true }).click();
    await toasts(page).getByText("Pulled the images of pihole").waitFor();
  });

  test("a failing deploy reports Komodo's reason and marks the stack", async () => {
    const page = await openStacks();
    const problemsBefore = Number((await chip(page, "Problems").textContent())?.replace("Problems ", ""));
    const outline = rowOf(page, "outline");
    await outline.getByRole("button", { name: "Redeploy outline", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Redeploy outline?" });
    // outline is down: nothing is taken down first, and the confirmation says so.
    await expect(dialog.textContent()).resolves.toContain("outline is down, so Komodo only deploys it");
    await dialog.getByRole("button", { name: "Redeploy", exact: true }).click();

    const toast = toasts(page).locator("li").filter({ hasText: "Redeploy of outline failed" });
    await toast.waitFor({ timeout: 15_000 });
    await expect(toast.textContent()).resolves.toContain(DEMO_DEPLOY_ERROR);
    await saveScreenshot(page, "stacks-deploy-failed", "light");

    // The refreshed list counts it among the problems and says why.
    await outline.getByText("Deploy failed", { exact: true }).waitFor();
    // The chips may count it a moment after the row shows its mark (seen: the row's mark gone while the
    // chip still said one more): read until they agree.
    await expect.poll(() => chip(page, "Problems").textContent()).toBe(`Problems ${problemsBefore + 1}`);

    // A later action that succeeds clears the mark (a pull leaves the stack down), so the other tests
    // see the world as it started.
    world().komodo.faults.setStack("outline", { failWith: undefined });
    expect((await deployWithKey(world().stackgate, world().apiKey, "outline", "pull")).status).toBe(200);
    await outline.getByText("Deploy failed", { exact: true }).waitFor({ state: "detached" });
    await expect.poll(() => chip(page, "Problems").textContent()).toBe(`Problems ${problemsBefore}`);
  });

  test("a pipeline's deploy (API key) shows up live on an open page, with its result", async () => {
    world().komodo.faults.setStack("traefik", { updateDelayMs: 1_500 });
    const page = await openStacks();
    const traefik = rowOf(page, "traefik");
    const answer = deployWithKey(world().stackgate, world().apiKey, "traefik", "pull");

    await traefik.getByText("Pulling").waitFor();
    await traefik.getByTitle(`API Key: ${API_KEY_NAME}`).getByText(API_KEY_NAME, { exact: true }).waitFor();
    expect(await traefik.getByRole("button", { name: "Redeploy traefik", exact: true }).isDisabled()).toBe(
      true,
    );
    expect((await answer).status).toBe(200);

    await toasts(page).getByText(`API Key: ${API_KEY_NAME} pulled the images of traefik`).waitFor();
    await traefik.getByText("Running", { exact: true }).waitFor();
  });

  test("a pipeline's result on a stack the person just deployed is still shown; the person's own is toasted once", async () => {
    const page = await openStacks();
    await rowOf(page, "pihole").getByRole("button", { name: "Pull pihole", exact: true }).click();
    await page
      .getByRole("dialog", { name: "Pull the images of pihole?" })
      .getByRole("button", { name: "Pull", exact: true })
      .click();
    await toasts(page).getByText("Pulled the images of pihole").waitFor();

    expect((await deployWithKey(world().stackgate, world().apiKey, "pihole", "pull")).status).toBe(200);
    await toasts(page).getByText(`API Key: ${API_KEY_NAME} pulled the images of pihole`).waitFor();
    await expect(toasts(page).getByText("Ada Admin pulled the images of pihole").count()).resolves.toBe(0);
  });
});

describe("a stack's page", () => {
  test("shows state, services, scan links and history; copies a CI snippet without any real key", async () => {
    await scansSettled(world());
    const page = await world().openSignedIn("/stacks/gitea");
    await page
      .context()
      .grantPermissions(["clipboard-read", "clipboard-write"], { origin: world().stackgate.baseUrl });
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("gitea");
    const services = page.getByRole("table", { name: "Services of gitea" });
    await services.getByText("gitea/gitea:1.22.3").waitFor();
    await services.getByText("postgres:16-alpine").waitFor();
    const details = services.getByRole("link", { name: "Vulnerabilities of postgres:16-alpine" });
    expect(await details.getAttribute("href")).toBe("/security?image=postgres%3A16-alpine");

    const ci = page.getByRole("region", { name: "Deploy from CI" });
    await ci.getByRole("button", { name: "Redeploy", exact: true }).click();
    await ci.getByRole("button", { name: "Copy the curl command" }).click();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`curl --fail-with-body -sS -X POST "${world().stackgate.baseUrl}/api/v0/deploy"`);
    expect(curl).toContain('-H "x-api-key: $STACKGATE_API_KEY"');
    expect(curl).toContain(`-d '{"stack":"gitea","action":"redeploy"}'`);
    await ci.getByRole("button", { name: "Copy the GitHub Actions step" }).click();
    const step = await page.evaluate(() => navigator.clipboard.readText());
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
    expect(step).toContain("STACKGATE_API_KEY: ${{ secrets.STACKGATE_API_KEY }}");
    expect(step).toContain("- name: Redeploy gitea");
    expect(await page.content()).not.toContain(world().apiKey);
    await saveScreenshot(page, "stack-detail", "light");
  });

  test("shows Komodo's automatic update check as a switch, and turns it on and off with clear feedback", async () => {
    // Komodo has it on for gitea (set there, not here): the switch says so.
    const gitea = await world().openSignedIn("/stacks/gitea");
    await gitea.getByRole("switch", { name: "Check for newer images of gitea", checked: true }).waitFor();
    await gitea.getByText("On in Komodo.").waitFor();

    const page = await world().openSignedIn("/stacks/grafana");
    const card = page.getByRole("region", { name: "Automatic update checks" });
    const name = "Check for newer images of grafana";
    const toggle = card.getByRole("switch", { name });
    await card.getByRole("switch", { name, checked: false }).waitFor();
    await card.getByText("Off in Komodo.").waitFor();

    // While the change is on its way the switch shows it, busy, and keeps the focus.
    const send = await holdRequests(page, "**/rpc/stacks/setPollForUpdates");
    await toggle.focus();
    await page.keyboard.press("Space");
    await card.getByText("Turning on…").waitFor();
    expect(await toggle.getAttribute("aria-checked")).toBe("true");
    expect(await toggle.getAttribute("aria-busy")).toBe("true");
    expect(await toggle.evaluate((element) => element === document.activeElement)).toBe(true);
    send();
    await toasts(page).getByText("Automatic update checks are on for grafana").waitFor();
    await card.getByText(/^Turned on at /).waitFor();
    await page.unrouteAll();

    // A fresh visit reads the setting back from Komodo.
    await page.reload();
    await hydrated(page);
    await card.getByRole("switch", { name, checked: true }).waitFor();

    // Komodo refuses the change: its reason beside the switch, which shows Komodo's setting again.
    world().komodo.faults.setStack("grafana", { forbidden: true });
    await toggle.click();
    await card.getByRole("status").getByText("Couldn't turn off update checks for grafana").waitFor();
    await expect(card.getByRole("status").textContent()).resolves.toContain("Komodo");
    await card.getByRole("switch", { name, checked: true }).waitFor();

    world().komodo.faults.setStack("grafana", { forbidden: undefined });
    await toggle.click();
    await card.getByText(/^Turned off at /).waitFor();
    const changes = world()
      .komodo.calls.filter((call) => call.type === "UpdateStack")
      .map((call) => (call.params as { config: { poll_for_updates: boolean } }).config.poll_for_updates);
    expect(changes.slice(-3)).toEqual([true, false, false]);
    await saveScreenshot(page, "stack-poll-for-updates", "light");
  });

  test("deletes a stack only once its name is typed, then lands on the list", async () => {
    world().komodo.addStack({ name: "scratch" });
    const page = await world().openSignedIn("/stacks/scratch");
    await page.getByText("It is running, so Komodo takes it down first.").waitFor();
    await page.getByRole("button", { name: "Delete stack…" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete scratch?" });
    await expect(dialog.textContent()).resolves.toContain("Komodo first takes scratch down");
    const confirm = dialog.getByRole("button", { name: "Delete scratch" });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel("Type scratch to confirm").fill("scratc");
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel("Type scratch to confirm").fill("scratch");
    await saveScreenshot(page, "stack-delete", "light");
    await confirm.click();

    await toasts(page).getByText("Deleted the stack scratch").waitFor();
    expect(page.url()).toBe(`${world().stackgate.baseUrl}/stacks`);
    expect(world().komodo.inspectStack("scratch")).toBeUndefined();
    await expect(rowOf(page, "scratch").count()).resolves.toBe(0);
  });

  test("marks a failed last deploy from the stack's own history, and asks for no one else's", async () => {
    world().komodo.addStack({ name: "flaky", faults: { failWith: DEMO_DEPLOY_ERROR } });
    try {
      const failed = await deployWithKey(world().stackgate, world().apiKey, "flaky", "redeploy");
      expect(failed.status).not.toBe(200);

      const page = await world().openPage({ signedInTo: world().stackgate });
      const historyInputs: string[] = [];
      page.on("request", (request) => {
        if (new URL(request.url()).pathname === "/rpc/history/list")
          historyInputs.push(request.postData() ?? "");
      });
      await page.goto(`${world().stackgate.baseUrl}/stacks/flaky`);
      await hydrated(page);
      const badge = page.getByText("Deploy failed", { exact: true });
      await badge.waitFor();
      await expect(badge.locator("..").getAttribute("title")).resolves.toContain(DEMO_DEPLOY_ERROR);
      // One request, the history card's, serves the mark too; the whole history is never asked for.
      expect(historyInputs).toHaveLength(1);
      expect(JSON.parse(historyInputs[0] ?? "{}")).toMatchObject({ json: { stack: "flaky" } });

      // A later deploy that succeeds clears the mark, live. Komodo holds it until the page shows it
      // running: the page's event stream is connected by then, so the deploy's end reaches it (one that
      // ended before the stream connected would not: the page asks again only on a reconnect).
      const pulling = page.getByText("Pulling", { exact: true });
      expect(await pulling.count()).toBe(0);
      world().komodo.faults.setStack("flaky", { failWith: undefined, holdUpdates: true });
      const answer = deployWithKey(world().stackgate, world().apiKey, "flaky", "pull");
      await world().komodo.whenHeld("flaky");
      await pulling.first().waitFor();
      world().komodo.releaseUpdates("flaky");
      expect((await answer).status).toBe(200);
      await badge.waitFor({ state: "detached" });
    } finally {
      // Komodo deletes it again, even after a failure here, so the later tests find the stacks they
      // started with.
      const { url, key, secret } = world().komodo;
      const deleted = await fetch(`${url}/write/DeleteStack`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key, "x-api-secret": secret },
        body: JSON.stringify({ id: "flaky" }),
      });
      expect(deleted.status).toBe(200);
    }
  });

  test("an unknown stack is a clear not-found state", async () => {
    const page = await world().openSignedIn("/stacks/no-such-stack");
    await page.getByText("Komodo has no stack called “no-such-stack”").waitFor();
    expect(await page.getByRole("link", { name: "All stacks" }).getAttribute("href")).toBe("/stacks");
  });
});

describe("on a phone", () => {
  test("the list collapses to compact entries that still deploy", async () => {
    world().komodo.faults.setStack("n8n", { updateDelayMs: 1_000 });
    const page = await world().openSignedIn("/stacks", { viewport: "mobile" });
    const entries = await compactEntriesScrolledThrough(page);
    // The table is in the page too, but CSS hides it: out of the accessibility tree.
    await expect(table(page).count()).resolves.toBe(0);
    const n8n = entries.filter({ has: page.getByRole("link", { name: "n8n", exact: true }) });
    await n8n.getByRole("button", { name: "Pull + Redeploy n8n" }).click();
    await page
      .getByRole("dialog", { name: "Pull and redeploy n8n?" })
      .getByRole("button", { name: "Pull + Redeploy" })
      .click();
    await n8n.getByText("Pulling + redeploying").waitFor();
    await toasts(page).getByText("Pulled and redeployed n8n").waitFor({ timeout: 15_000 });
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });
});

describe("screenshots", () => {
  for (const viewport of ["desktop", "mobile"] as const) {
    for (const theme of ["light", "dark"] as const) {
      test(`stacks and a stack's page at ${viewport}, ${theme}`, async () => {
        await scansSettled(world());
        const page = await world().openSignedIn("/stacks", { viewport, theme });
        await page.getByRole(viewport === "desktop" ? "table" : "list", { name: "Stacks" }).waitFor();
        await saveScreenshot(page, "stacks", theme);
        await page.goto(`${world().stackgate.baseUrl}/stacks/immich`);
        await hydrated(page);
        await page.locator("code:visible", { hasText: "docker.io/redis:6.2-alpine" }).first().waitFor();
        await page
          .getByRole("table", { name: "Recent deploys of immich" })
          .or(page.getByText("No deploys of immich"))
          .waitFor();
        await saveScreenshot(page, "stack-detail-immich", theme);
      });
    }
  }

  test("in Spanish", async () => {
    const page = await world().openSignedIn("/stacks", { lang: "es", theme: "dark" });
    await page.getByRole("table", { name: "Stacks" }).waitFor();
    await page.getByRole("button", { name: "Redesplegar grafana", exact: true }).click();
    await page.getByRole("dialog", { name: "¿Redesplegar grafana?" }).waitFor();
    await saveScreenshot(page, "stacks-es", "dark");
    await page.keyboard.press("Escape");
    await page.goto(`${world().stackgate.baseUrl}/stacks/outline`);
    await hydrated(page);
    await page.getByRole("heading", { name: "Desplegar desde CI" }).waitFor();
    await saveScreenshot(page, "stack-detail-es", "dark");
  });
});

describe("without Komodo", () => {
  test("no connection: says so and links to Settings; Komodo unreachable: the reason and a retry", async () => {
    await disconnectKomodo(world().stackgate);
    try {
      const page = await world().openSignedIn("/stacks");
      await page.getByText("No Komodo connection yet").waitFor();
      expect(await page.getByRole("link", { name: "Connect" }).getAttribute("href")).toBe("/settings");
      await saveScreenshot(page, "stacks-no-connection", "light");
    } finally {
      await connectKomodo(world().stackgate, world().komodo);
    }

    await world().komodo.faults.set({ down: true });
    const page = await world().openSignedIn("/stacks");
    const alert = page.getByRole("alert").filter({ hasText: "Couldn't load the stacks" });
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toContain("Komodo didn't answer as expected");
    await saveScreenshot(page, "stacks-komodo-down", "dark");
    await world().komodo.faults.set({ down: false });
    await alert.getByRole("button", { name: "Try again" }).click();
    await table(page).waitFor();
  });
});

/** A fresh visit of /stacks: when its first row's action could be used, and the scripts it loaded. */
async function measureVisit() {
  const page = await world().openPage({ signedInTo: world().stackgate });
  const scripts = new Set<string>();
  page.on("response", (response) => {
    if (response.request().resourceType() === "script") scripts.add(new URL(response.url()).pathname);
  });
  await page.goto(`${world().stackgate.baseUrl}/stacks`);
  const handle = await page.waitForFunction(
    () => {
      // Rows exist only once the list's island has hydrated; the check says so explicitly anyway.
      const button = document.querySelector<HTMLButtonElement>('table tbody button[aria-label^="Pull "]');
      const hydrated = button && !button.closest("astro-island")?.hasAttribute("ssr");
      return hydrated && !button.disabled ? performance.now() : false;
    },
    undefined,
    { polling: "raf", timeout: 10_000 },
  );
  return { page, scripts, interactiveMs: (await handle.jsonValue()) as number };
}

describe("performance with 200 stacks", () => {
  test("ships at most 200 KB of gzipped JavaScript, and its rows become interactive (time printed)", async () => {
    const big = await startKomodoSimulator({ stacks: 200 });
    try {
      await connectKomodo(world().stackgate, big);
      // Warm up once (server render, Komodo connection, scan queue), and let the scans finish so that
      // scanner processes do not compete for the CPU during the measurement.
      await (await world().openSignedIn("/stacks")).close();
      await scansSettled(world());

      // The machine may be busy with other work (two cores, other test runs): measure five fresh visits
      // and judge the median.
      const visits = [];
      for (let visit = 0; visit < 5; visit++) {
        await visits.at(-1)?.page.close();
        visits.push(await measureVisit());
      }
      const { page, scripts } = visits.at(-1)!;
      const interactiveMs = visits.map((v) => v.interactiveMs).sort((a, b) => a - b)[2]!;
      // Only the rows in reach are built; scrolling to the end builds the rest, down to the 200th. The
      // shell's idle islands load their code last: count the JavaScript once everything has hydrated.
      await page.waitForFunction(() => {
        const rows = document.querySelectorAll("table tbody > tr");
        rows[rows.length - 1]?.scrollIntoView({ block: "end" });
        return rows.length === 200;
      });
      await page.waitForFunction(() => !document.querySelector("astro-island[ssr]"));

      const dist = process.env.STACKGATE_FRONTEND_DIST ?? join(repoRoot, "apps/frontend/dist");
      const gzipBytes = [...scripts].reduce(
        (sum, path) => sum + gzipSync(readFileSync(join(dist, "client", path))).length,
        0,
      );
      console.log(
        `/stacks with 200 stacks: ${scripts.size} JavaScript files, ${(gzipBytes / 1024).toFixed(1)} KB gzipped; ` +
          `interactive (first row's action enabled) ${Math.round(interactiveMs)} ms after navigation start ` +
          `(median of ${visits.map((v) => Math.round(v.interactiveMs)).join(", ")} ms)`,
      );
      expect(gzipBytes).toBeLessThanOrEqual(200 * 1024);
      // Time to interactive is printed here and judged in bench/lighthouse.ts: a timed assertion fails on
      // a busy machine, not on a slow page. Each visit above fails if its first row's action is not
      // enabled within 10 s.
    } finally {
      await connectKomodo(world().stackgate, world().komodo);
      await big.close();
    }
  });
});
