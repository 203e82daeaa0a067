/**
 * axe-core on every page and open state of the dashboard, at a laptop's and a phone's width, in the
 * light and the dark theme: zero violations of WCAG 2.2 A/AA and axe's best practices. A failure lists
 * each rule with the elements it found.
 */
import type { Page } from "playwright-core";
import { afterEach, describe, expect, test } from "vitest";
import { axeViolations, describeViolations } from "./axe.ts";
import { hydrated, saveScreenshot, type ThemeName, type ViewportName } from "./browser.ts";
import { deployWithKey } from "./komodo-setup.ts";
import { addPerson, freshEmail, invite } from "./people-setup.ts";
import { CRITICAL_IMAGE, scansSettled, stackWorldOfThisFile } from "./stack-world.ts";

const world = stackWorldOfThisFile({ frontendEnv: { STACKGATE_DEMO: "1" } }, async (scene) => {
  // History to show: one success and one failure, made as a pipeline would.
  expect((await deployWithKey(scene.stackgate, scene.apiKey, "pihole", "pull")).status).toBe(200);
  expect((await deployWithKey(scene.stackgate, scene.apiKey, "outline", "redeploy")).status).toBe(502);
  await scansSettled(scene);
  // People to list, and changes for the audit log.
  await addPerson(scene.stackgate, "deployer", "Dana Deployer");
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

const THEMES = ["light", "dark"] as const satisfies ThemeName[];
/** The page opens in the light theme; each state is then checked in both. */
const theme = THEMES[0];

/**
 * Switches the page's theme as the dashboard's own switch does (`data-theme` on <html>), and waits
 * for the colours' transitions to end: axe measures contrast in the colours shown.
 */
async function showTheme(page: Page, name: ThemeName) {
  await page.evaluate(async (next) => {
    document.documentElement.dataset.theme = next;
    await new Promise(requestAnimationFrame);
    const transitions = document.getAnimations().filter((each) => each instanceof CSSTransition);
    await Promise.all(transitions.map((each) => each.finished.catch(() => {})));
  }, name);
}

/** The page in each theme, as `<name>-<width>-<theme>.png`. */
async function saveScreenshots(page: Page, name: string) {
  for (const each of THEMES) {
    await showTheme(page, each);
    await saveScreenshot(page, name, each);
  }
}

for (const viewport of ["desktop", "mobile"] as const satisfies ViewportName[]) {
  describe(`at ${viewport} width, in the light and the dark theme`, () => {
    const found: string[] = [];
    // One page load per state, both themes checked on it: only data-theme on <html> tells them apart.
    const check = async (page: Page, state: string) => {
      for (const each of THEMES) {
        await showTheme(page, each);
        found.push(...describeViolations(`${state}, ${each} theme`, await axeViolations(page)));
      }
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

    test("settings (your account among them), with the remove-connection dialog open", async () => {
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

    test("people (with an invitation link shown), the audit log, and the invitation page", async () => {
      const listRole = viewport === "desktop" ? "table" : "list";
      const page = await world().openSignedIn("/settings/people", { viewport, theme });
      await settled(page);
      await page.getByRole(listRole, { name: "People" }).getByText("Dana Deployer").waitFor();
      await check(page, "people");
      await saveScreenshots(page, "people");
      const form = page.getByRole("form", { name: "Invite a person" });
      const email = freshEmail("axe");
      await form.getByLabel("Email").fill(email);
      await form.getByRole("button", { name: "Invite" }).click();
      await page.getByRole("dialog", { name: `Invitation for ${email}` }).waitFor();
      await check(page, "invitation link dialog");
      await saveScreenshots(page, "people-invite-link");
      await page.keyboard.press("Escape");

      await visit(page, "/settings/audit");
      await page.getByRole(listRole, { name: "Audit log" }).getByText("invitation.created").first().waitFor();
      await check(page, "audit log");
      await saveScreenshots(page, "audit");

      const { token } = await invite(world().stackgate, freshEmail("axe-page"), "viewer");
      const invitee = await world().openPage({ viewport, theme });
      await visit(invitee, `/invite/${token}`);
      await invitee.getByLabel("Choose a password").waitFor();
      await check(invitee, "invitation page");
      await saveScreenshots(invitee, "invite");
      await visit(invitee, "/invite/abcdefghijklmnopqrstuvwxyz012345");
      await invitee.getByRole("heading", { name: "This invitation can't be used" }).waitFor();
      await check(invitee, "invitation problem page");
      await saveScreenshots(invitee, "invite-problem");
    });
  });
}
