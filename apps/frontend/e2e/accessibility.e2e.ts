/**
 * axe-core on every page and open state of the dashboard, at a laptop's and a phone's width, in the
 * light and the dark theme: zero violations of WCAG 2.2 A/AA and axe's best practices. A failure lists
 * each rule with the elements it found.
 */
import type { Page } from "playwright-core";
import { afterEach, describe, expect, test } from "vitest";
import { axeViolations, describeViolations } from "./axe.ts";
import { hydrated, type ThemeName, type ViewportName } from "./browser.ts";
import { deployWithKey } from "./komodo-setup.ts";
import { CRITICAL_IMAGE, scansSettled, stackWorldOfThisFile } from "./stack-world.ts";

const world = stackWorldOfThisFile({ frontendEnv: { STACKGATE_DEMO: "1" } }, async (scene) => {
  // History to show: one success and one failure, made as a pipeline would.
  expect((await deployWithKey(scene.stackgate, scene.apiKey, "pihole", "pull")).status).toBe(200);
  expect((await deployWithKey(scene.stackgate, scene.apiKey, "outline", "redeploy")).status).toBe(502);
  await scansSettled(scene);
});

/** Loaded data replaces the skeletons; only then is the page what a person reads. */
async function settled(page: Page) {
  await hydrated(page);
  await page.waitForFunction(() => !document.querySelector('[class~="motion-safe:animate-pulse"]'));
}

async function visit(page: Page, path: string) {
  await page.goto(`${world().stackgate.baseUrl}${path}`);
  await settled(page);
}

for (const viewport of ["desktop", "mobile"] as const satisfies ViewportName[]) {
  for (const theme of ["light", "dark"] as const satisfies ThemeName[]) {
    describe(`at ${viewport} width, ${theme} theme`, () => {
      const found: string[] = [];
      const check = async (page: Page, state: string) => {
        found.push(...describeViolations(state, await axeViolations(page)));
      };
      afterEach(() => {
        const lines = found.splice(0);
        expect(lines, `axe found:\n${lines.join("\n")}`).toEqual([]);
      });

      test("sign-in, and a failed sign-in", async () => {
        const page = await world().openPage({ viewport, theme });
        await visit(page, "/sign-in");
        await check(page, "sign-in");
        await page.getByLabel("Email").fill(world().stackgate.admin.email);
        await page.getByLabel("Password").fill("not-the-password");
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("alert").filter({ hasText: "Wrong email or password." }).waitFor();
        await check(page, "failed sign-in");
      });

      test("overview, with the account menu (and the main menu on a phone) open", async () => {
        const page = await world().openSignedIn("/", { viewport, theme });
        await settled(page);
        await page.getByRole("list", { name: "Stacks at a glance" }).waitFor();
        await check(page, "overview");
        const account = page.getByRole("button", { name: /^Account/ });
        await account.click();
        await check(page, "account menu");
        await account.click();
        if (viewport === "mobile") {
          await page.getByRole("button", { name: "Menu", exact: true }).click();
          await check(page, "main menu");
        }
      });

      test("stacks, with services expanded and a deploy confirmation open", async () => {
        const page = await world().openSignedIn("/stacks", { viewport, theme });
        await settled(page);
        const list = page.getByRole(viewport === "desktop" ? "table" : "list", { name: "Stacks" });
        await list.waitFor();
        await check(page, "stacks");
        const expand = page.getByRole("button", { name: "Show the services of gitea" });
        if (await expand.count()) {
          await expand.click();
          await page.getByRole("button", { name: "Hide the services of gitea" }).waitFor();
          await check(page, "stacks, services of gitea expanded");
        }
        await page.getByRole("button", { name: "Redeploy grafana", exact: true }).click();
        await page.getByRole("dialog", { name: "Redeploy grafana?" }).waitFor();
        await check(page, "deploy confirmation");
        await page.keyboard.press("Escape");
      });

      test("a stack's page", async () => {
        const page = await world().openSignedIn("/stacks/outline", { viewport, theme });
        await settled(page);
        await page.getByRole("table", { name: "Recent deploys of outline" }).waitFor();
        await check(page, "stack outline");
      });

      test("history, with a failure's message expanded", async () => {
        const page = await world().openSignedIn("/history", { viewport, theme });
        await settled(page);
        await page.getByText("deploy-web", { exact: true }).filter({ visible: true }).first().waitFor();
        await check(page, "history");
        const message = page.locator("button[aria-expanded]:visible").filter({ hasText: /./ }).last();
        if (await message.count()) {
          await message.click();
          await check(page, "history, message expanded");
        }
      });

      test("security and an image's detail", async () => {
        const page = await world().openSignedIn("/security", { viewport, theme });
        await settled(page);
        await page.getByText(CRITICAL_IMAGE).filter({ visible: true }).first().waitFor();
        await check(page, "security");
        await visit(page, `/security?image=${encodeURIComponent(CRITICAL_IMAGE)}`);
        await check(page, "image detail");
      });

      test("settings, with the remove-connection dialog open", async () => {
        const page = await world().openSignedIn("/settings", { viewport, theme });
        await settled(page);
        const connection = page.getByRole("region", { name: "Komodo connection" });
        await connection.getByRole("button", { name: "Remove" }).waitFor();
        await check(page, "settings");
        await connection.getByRole("button", { name: "Remove" }).click();
        await page.getByRole("dialog", { name: /^Remove the connection/ }).waitFor();
        await check(page, "remove-connection dialog");
        await page.keyboard.press("Escape");
      });
    });
  }
}
