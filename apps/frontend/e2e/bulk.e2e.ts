/**
 * Bulk actions on the Stacks page at 200 stacks (issue 24): selecting by mouse and keyboard, "Update
 * all" with one stack (`outline`) whose deploys fail, and cancelling mid-way; at 1280 and 375 px, in
 * English and Spanish, light and dark, under axe. Every deploy must reach the history under the person.
 */
import { DEMO_DEPLOY_ERROR } from "@stackgate/simulators";
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { axeViolations, describeViolations } from "./axe.ts";
import { saveScreenshot } from "./browser.ts";
import { adminRequest } from "./komodo-setup.ts";
import { manyStacks, stackWorldOfThisFile } from "./stack-world.ts";

const STACKS = manyStacks(200);
const world = stackWorldOfThisFile({ stacks: STACKS });

const bar = (page: Page, name = "Selection") => page.getByRole("region", { name });
const dialog = (page: Page) => page.getByRole("dialog");

async function expectAxeClean(page: Page, state: string) {
  // At the top: rows scrolled half under the sticky header would count as obscured targets.
  await page.evaluate(() => window.scrollTo(0, 0));
  const lines = describeViolations(state, await axeViolations(page));
  expect(lines, `axe found:\n${lines.join("\n")}`).toEqual([]);
}

interface Entry {
  stack: string;
  action: string;
  actor: string;
  via: string;
  success: boolean;
}

async function historyOf(action: string): Promise<Entry[]> {
  const { history } = (await adminRequest(world().stackgate, "GET", "/api/v0/history?limit=100")) as {
    history: Entry[];
  };
  return history.filter((entry) => entry.action === action);
}

describe("bulk actions at 200 stacks", () => {
  test("selecting: per row by keyboard, all shown following the search, a visible count (1280 px, light, English)", async () => {
    const page = await world().openSignedIn("/stacks");
    const selection = bar(page);
    await selection.getByRole("status").filter({ hasText: "None selected" }).waitFor();

    // 200 stacks: the ones further down are reached by the search (only the rows in reach are built).
    const search = page.getByRole("searchbox", { name: "Search stacks" });
    await search.fill("grafana");
    const grafana = page.getByRole("checkbox", { name: "Select grafana", exact: true });
    await grafana.focus();
    await page.keyboard.press("Space");
    await expect(grafana.isChecked()).resolves.toBe(true);
    await search.fill("traefik");
    await page.getByRole("checkbox", { name: "Select traefik", exact: true }).check();
    await selection.getByRole("status").filter({ hasText: "2 selected" }).waitFor();

    // "Select all shown" follows the search: only the gitea stacks, the two chosen before stay chosen.
    const gitea = STACKS.filter((seed) => seed.name.startsWith("gitea")).length;
    expect(gitea).toBeGreaterThan(3);
    await search.fill("gitea");
    const all = page.getByRole("checkbox", { name: `Select all shown (${gitea})` });
    await all.check();
    await selection
      .getByRole("status")
      .filter({ hasText: `${gitea + 2} selected (2 not shown)` })
      .waitFor();
    for (const label of ["Pull", "Redeploy", "Pull + Redeploy", "Poll for updates: on", "Delete"]) {
      await selection.getByRole("button", { name: label, exact: true }).waitFor();
    }
    await expectAxeClean(page, "stacks with a selection");

    // The confirmation names the action, the count and every stack.
    await selection.getByRole("button", { name: "Redeploy", exact: true }).click();
    await dialog(page)
      .getByRole("heading", { name: `Redeploy ${gitea + 2} stacks?` })
      .waitFor();
    const listed = await dialog(page)
      .getByRole("list", { name: "The stacks" })
      .locator("li")
      .allTextContents();
    expect(listed).toHaveLength(gitea + 2);
    expect(listed).toEqual(expect.arrayContaining(["gitea", "grafana", "traefik"]));
    await expectAxeClean(page, "bulk confirmation");
    await saveScreenshot(page, "stacks-bulk-confirm", "light");
    await dialog(page).getByRole("button", { name: "Cancel" }).click();
    await expect(dialog(page).isVisible()).resolves.toBe(false);

    await all.uncheck();
    await selection.getByRole("status").filter({ hasText: "2 selected" }).waitFor();
    await selection.getByRole("button", { name: "Clear selection" }).click();
    await selection.getByRole("status").filter({ hasText: "None selected" }).waitFor();
    expect(await historyOf("redeploy")).toEqual([]);
  });

  test("Actualizar todos: pull + redeploy on every stack with an update, one summary naming the failed outline (1280 px, dark, Spanish)", async () => {
    const updatable = STACKS.filter((seed) => seed.services?.some((service) => service.updateAvailable));
    expect(updatable.map((seed) => seed.name)).toContain("outline");
    const page = await world().openSignedIn("/stacks", { lang: "es", theme: "dark" });
    await page
      .getByRole("group", { name: "Mostrar" })
      .getByRole("button", { name: new RegExp(`^Con actualización ${updatable.length}$`) })
      .click();
    await bar(page, "Selección")
      .getByRole("button", { name: `Actualizar todos (${updatable.length})` })
      .click();

    const confirm = dialog(page);
    await confirm
      .getByRole("heading", { name: `¿Descargar y redesplegar ${updatable.length} stacks?` })
      .waitFor();
    const listed = await confirm.getByRole("list", { name: "Los stacks" }).locator("li").allTextContents();
    expect(listed.sort()).toEqual(updatable.map((seed) => seed.name).sort());
    await confirm.getByRole("button", { name: `Descargar y redesplegar ${updatable.length} stacks` }).click();

    const panel = page.getByRole("region", {
      name: `Descargando y redesplegando ${updatable.length} stacks`,
    });
    await panel.waitFor();
    const summary = panel.getByRole("status").filter({ hasText: "correctos" });
    await summary.waitFor({ timeout: 240_000 });
    expect(await summary.innerText()).toContain(`${updatable.length - 1} correctos, 1 con error.`);
    await summary.getByRole("link", { name: "outline" }).waitFor();
    await panel.getByText(DEMO_DEPLOY_ERROR).waitFor();
    await expectAxeClean(page, "bulk summary (es, dark)");
    await saveScreenshot(page, "stacks-bulk-summary", "dark");

    // Each one went through the normal API: in the history, under the person who started it.
    const entries = await historyOf("pull-redeploy");
    expect(entries.map((entry) => entry.stack).sort()).toEqual(updatable.map((seed) => seed.name).sort());
    expect(
      entries.every((entry) => entry.actor === world().stackgate.admin.name && entry.via === "session"),
    ).toBe(true);
    expect(entries.filter((entry) => !entry.success).map((entry) => entry.stack)).toEqual(["outline"]);
  }, 360_000);

  test("cancelling mid-way sends nothing more and lets the sent ones finish; the limit is remembered (375 px, dark, English)", async () => {
    await world().komodo.faults.set({ updateDelayMs: 1_500 });
    const page = await world().openSignedIn("/stacks", { viewport: "mobile", theme: "dark" });
    await page.getByRole("searchbox", { name: "Search stacks" }).fill("paperless");
    const shown = STACKS.filter((seed) => seed.name.startsWith("paperless")).length;
    expect(shown).toBeGreaterThan(4);
    await page.getByRole("checkbox", { name: `Select all shown (${shown})` }).check();
    await bar(page).getByRole("button", { name: "Pull", exact: true }).click();
    await dialog(page).getByLabel("Run at most").selectOption("2");
    await expectAxeClean(page, "bulk confirmation at 375 px");
    await dialog(page)
      .getByRole("button", { name: `Pull ${shown} stacks` })
      .click();

    const panel = page.getByRole("region", { name: `Pulling ${shown} stacks` });
    // A stack being deployed reads as its row does: the action's word and its clock.
    const running = panel.getByRole("list", { name: "Each stack" }).getByText("Pulling", { exact: true });
    await running.first().waitFor();
    // Never more than the chosen two at once.
    for (let look = 0; look < 5; look += 1) {
      expect(await running.count()).toBeLessThanOrEqual(2);
      await page.waitForTimeout(150);
    }
    await panel.getByRole("button", { name: /^Cancel the \d+ not sent$/ }).click();
    const cancelled = panel.getByRole("status").filter({ hasText: /^Cancelled: \d+ not sent/ });
    await cancelled.waitFor();
    const unsent = Number((await cancelled.innerText()).match(/^Cancelled: (\d+)/)?.[1]);
    const sent = shown - unsent;
    expect(unsent).toBeGreaterThan(0);
    expect(sent).toBeGreaterThanOrEqual(2);
    expect(await cancelled.innerText()).toContain(`The ${sent} already sent keep running`);

    const summary = panel.getByRole("status").filter({ hasText: "succeeded" });
    await summary.waitFor({ timeout: 30_000 });
    expect(await summary.innerText()).toContain(`${sent} succeeded, 0 failed. ${unsent} cancelled.`);
    await expectAxeClean(page, "cancelled bulk run at 375 px");
    await saveScreenshot(page, "stacks-bulk-cancelled", "dark");
    const pulls = (await historyOf("pull")).filter((entry) => entry.stack.startsWith("paperless"));
    expect(pulls).toHaveLength(sent);

    // The limit chosen is remembered in this browser.
    await page.getByRole("checkbox", { name: `Select all shown (${shown})` }).check();
    await bar(page).getByRole("button", { name: "Pull", exact: true }).click();
    await expect(dialog(page).getByLabel("Run at most").inputValue()).resolves.toBe("2");
    await dialog(page).getByRole("button", { name: "Cancel" }).click();
  });

  test("leaving the page does not stop the deploys already sent (1280 px)", async () => {
    await world().komodo.faults.set({ updateDelayMs: 1_500 });
    const page = await world().openSignedIn("/stacks");
    await page.getByRole("searchbox", { name: "Search stacks" }).fill("jellyfin");
    const shown = STACKS.filter((seed) => seed.name.startsWith("jellyfin")).length;
    await page.getByRole("checkbox", { name: `Select all shown (${shown})` }).check();
    await bar(page).getByRole("button", { name: "Redeploy", exact: true }).click();
    await dialog(page).getByLabel("Run at most").selectOption("1");
    await dialog(page)
      .getByRole("button", { name: `Redeploy ${shown} stacks` })
      .click();
    await page
      .getByRole("region", { name: `Redeploying ${shown} stacks` })
      .getByText("Redeploying", { exact: true })
      .first()
      .waitFor();
    // Leaving by a link asks first, saying the ones waiting would be cancelled.
    await page.getByRole("navigation").getByRole("link", { name: "History", exact: true }).first().click();
    const leave = page.getByRole("dialog", { name: "Leave this page?" });
    await leave.getByRole("button", { name: "Leave and cancel them" }).click();
    await page.waitForURL(/\/history$/);
    // The one sent finishes in Komodo and is recorded; none of the others was ever sent.
    await expect
      .poll(async () => (await historyOf("redeploy")).filter((e) => e.stack.startsWith("jellyfin")).length, {
        timeout: 15_000,
      })
      .toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await historyOf("redeploy")).filter((e) => e.stack.startsWith("jellyfin"))).toHaveLength(1);
  });
});
