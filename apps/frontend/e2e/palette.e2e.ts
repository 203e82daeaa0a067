/**
 * The command palette (issue 24) at 200 stacks: by keyboard only, ranked matches, recent items first,
 * a deploy behind the same confirmation as the row's button, the WAI-ARIA combobox pattern, Escape
 * giving focus back; at 1280 and 375 px, English and Spanish, light and dark, under axe.
 */
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { axeViolations, describeViolations } from "./axe.ts";
import { hydrated, saveScreenshot } from "./browser.ts";
import { adminRequest } from "./komodo-setup.ts";
import { manyStacks, stackWorldOfThisFile } from "./stack-world.ts";

const world = stackWorldOfThisFile({ stacks: manyStacks(200) });

async function expectAxeClean(page: Page, state: string) {
  const lines = describeViolations(state, await axeViolations(page));
  expect(lines, `axe found:\n${lines.join("\n")}`).toEqual([]);
}

/** Ranking a thousand items per keystroke takes a while on a busy machine. */
const SLOW = { timeout: 15_000 };

const combobox = (page: Page) => page.getByRole("combobox");
const options = (page: Page) => page.getByRole("listbox").getByRole("option");

/** The option aria-activedescendant points at: what Enter would choose. */
function activeOption(page: Page) {
  return combobox(page).evaluate((input) => {
    const id = input.getAttribute("aria-activedescendant");
    const option = id ? document.getElementById(id) : null;
    return {
      text: option?.querySelector("bdi")?.textContent ?? null,
      selected: option?.getAttribute("aria-selected"),
    };
  });
}

/** Ctrl+K, then wait until the palette's field has the focus, as a person waits to see it. */
async function openPalette(page: Page) {
  await page.keyboard.press("Control+k");
  await expect
    .poll(() => combobox(page).evaluate((element) => element === document.activeElement), SLOW)
    .toBe(true);
}

describe("the command palette", () => {
  test("by keyboard only: ranked matches, Escape returns focus, Enter goes, recent first (1280 px, light, English)", async () => {
    const page = await world().openSignedIn("/stacks");
    await page.getByRole("table", { name: "Stacks" }).waitFor();
    await page.keyboard.press("/");
    const search = page.getByRole("searchbox", { name: "Search stacks" });
    await expect(search.evaluate((element) => element === document.activeElement)).resolves.toBe(true);

    await page.keyboard.press("Control+k");
    await combobox(page).waitFor();
    await expect(combobox(page).evaluate((element) => element === document.activeElement)).resolves.toBe(
      true,
    );
    await expect(combobox(page).getAttribute("aria-expanded")).resolves.toBe("true");
    const listboxId = await combobox(page).getAttribute("aria-controls");
    expect(await page.getByRole("listbox").getAttribute("id")).toBe(listboxId);
    await expectAxeClean(page, "palette open");

    // An exact name first, then names starting with it, then names containing it.
    await page.keyboard.type("gitea-3");
    await expect.poll(async () => (await activeOption(page)).text, SLOW).toBe("gitea-3");
    expect((await activeOption(page)).selected).toBe("true");
    await page.keyboard.press("ArrowDown");
    const second = (await activeOption(page)).text ?? "";
    expect(second).not.toBe("gitea-3");
    expect(second.toLowerCase()).toContain("gitea-3");
    await saveScreenshot(page, "palette", "light");

    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog").count()).resolves.toBe(0);
    await expect(search.evaluate((element) => element === document.activeElement)).resolves.toBe(true);

    // Images are there too, by part of their reference.
    await openPalette(page);
    await page.keyboard.type("vaultwarden/ser");
    await expect.poll(async () => (await activeOption(page)).text, SLOW).toBe("vaultwarden/server:1.32.1");
    await page.keyboard.press("Escape");

    await openPalette(page);
    await page.keyboard.type("gitea-3");
    await expect.poll(async () => (await activeOption(page)).text, SLOW).toBe("gitea-3");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/stacks\/gitea-3$/);
    await hydrated(page);

    // Recent items lead when nothing is typed.
    await page.keyboard.press("Control+k");
    await combobox(page).waitFor();
    await expect.poll(async () => (await activeOption(page)).text, SLOW).toBe("gitea-3");
    await expect(options(page).first().innerText()).resolves.toContain("Recent");
    await page.keyboard.type("histo");
    await expect.poll(async () => (await activeOption(page)).text, SLOW).toBe("History");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/history$/);
  }, 240_000);

  test("a deploy from the palette, behind the same confirmation as the button (375 px, dark, Spanish)", async () => {
    const page = await world().openSignedIn("/", { viewport: "mobile", theme: "dark", lang: "es" });
    const opener = page.getByRole("button", { name: /Buscar y ejecutar/ });
    await opener.click();
    await combobox(page).waitFor();
    await page.keyboard.type("descargar graf");
    await expect.poll(async () => (await activeOption(page)).text, SLOW).toBe("Descargar grafana");
    await expectAxeClean(page, "palette open (es, dark, 375 px)");
    await saveScreenshot(page, "palette-es", "dark");
    await page.keyboard.press("Enter");

    const confirm = page.getByRole("dialog");
    await confirm.getByRole("heading", { name: "¿Descargar las imágenes de grafana?" }).waitFor();
    await confirm.getByRole("button", { name: "Descargar", exact: true }).click();
    await page.getByRole("region", { name: "Notificaciones" }).getByText("grafana").first().waitFor();
    await expect
      .poll(async () => {
        const { history } = (await adminRequest(
          world().stackgate,
          "GET",
          "/api/v0/history?stack=grafana",
        )) as {
          history: { action: string; actor: string }[];
        };
        return history.map((entry) => `${entry.action} by ${entry.actor}`);
      }, SLOW)
      .toEqual([`pull by ${world().stackgate.admin.name}`]);
    // Focus is back on the button that opened the palette.
    await expect(opener.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
  }, 180_000);
});
