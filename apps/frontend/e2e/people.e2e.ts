/**
 * Teams in the dashboard: an invitation from Settings › People accepted in a fresh browser, the pages
 * of links that cannot be used, what a viewer sees (and what the API answers when they force it), an
 * admin's changes to a person and the audit log that records them, and one's own account.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { hydrated, saveScreenshot } from "./browser.ts";
import { adminRequest } from "./komodo-setup.ts";
import {
  addPerson,
  expireInvitation,
  freshEmail,
  invite,
  type Person,
  seedAuditEntries,
  statusAs,
} from "./people-setup.ts";
import { overflowing } from "./scenario.ts";
import { CRITICAL_IMAGE, stackWorldOfThisFile } from "./stack-world.ts";

const world = stackWorldOfThisFile();
const baseUrl = () => world().stackgate.baseUrl;

async function openAs(person: Person | null, path: string): Promise<Page> {
  const page = await world().openPage(person ? { signedInTo: world().stackgate, as: person } : {});
  await page.goto(`${baseUrl()}${path}`);
  await hydrated(page);
  return page;
}

async function roleInUserMenu(page: Page): Promise<string> {
  await page.getByRole("button", { name: /^Account of/ }).click();
  const role = page.getByText(/^Role: /);
  await role.waitFor();
  return (await role.textContent()) ?? "";
}

describe("an invitation", () => {
  test("an admin invites a deployer, who opens the link in a fresh browser, chooses a name and a password and arrives signed in as a deployer", async () => {
    const admin = await world().openSignedIn("/settings/people");
    const email = freshEmail("invitee");
    const form = admin.getByRole("form", { name: "Invite a person" });
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Role").selectOption("deployer");
    await form.getByRole("button", { name: "Invite" }).click();

    const dialog = admin.getByRole("dialog", { name: `Invitation for ${email}` });
    await dialog.waitFor();
    const link = (await dialog.locator("code").textContent()) ?? "";
    expect(link).toMatch(new RegExp(`^${baseUrl()}/invite/[A-Za-z0-9_-]{16,}$`));
    await dialog.getByText(/^Valid until /).waitFor();
    await dialog.getByRole("button", { name: "Copy the invitation link" }).waitFor();
    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "detached" });
    // Shown once: the link is nowhere in the page any more, and the invitation waits in the list.
    expect(await admin.content()).not.toContain(link);
    const pending = admin.getByRole("table", { name: "Pending invitations" });
    await pending.getByRole("row").filter({ hasText: email }).getByText("Deployer").waitFor();

    const invitee = await openAs(null, new URL(link).pathname);
    await invitee.getByRole("heading", { name: "Join Stackgate" }).waitFor();
    await invitee.getByText(`You were invited as ${email} with the role Deployer.`).waitFor();
    await invitee.getByLabel("Your name").fill("Dana Deployer");
    await invitee.getByLabel("Choose a password").fill("a-long-enough-password");
    await invitee.getByRole("button", { name: "Create account and sign in" }).click();
    await invitee.waitForURL(`${baseUrl()}/`);
    await hydrated(invitee);
    expect(await roleInUserMenu(invitee)).toBe("Role: Deployer");

    // A deployer deploys but deletes no stacks.
    await invitee.goto(`${baseUrl()}/stacks/grafana`);
    await hydrated(invitee);
    await invitee.getByRole("button", { name: "Redeploy grafana", exact: true }).waitFor();
    expect(await invitee.getByRole("heading", { name: "Delete stack" }).count()).toBe(0);

    // The invitation is used up: it leaves the pending list and its link shows why it no longer works.
    await admin.reload();
    await hydrated(admin);
    await admin.getByRole("table", { name: "People" }).getByText("Dana Deployer").waitFor();
    expect(await admin.getByText(email, { exact: true }).count()).toBeGreaterThan(0);
    const again = await world().openPage();
    const answer = await again.goto(link);
    expect(answer?.status()).toBe(410);
    await again.getByText("This invitation has already been used.", { exact: false }).waitFor();
  });

  test("an expired, a revoked and an unknown link each show a page naming the problem, without a session", async () => {
    const stackgate = world().stackgate;
    const expired = await invite(stackgate, freshEmail("expired"), "viewer");
    expireInvitation(stackgate, expired.id);
    const revoked = await invite(stackgate, freshEmail("revoked"), "viewer");
    await adminRequest(stackgate, "DELETE", `/api/v0/users/invitations/${revoked.id}`);

    const cases = [
      { path: `/invite/${expired.token}`, status: 410, text: "This invitation has expired." },
      { path: `/invite/${revoked.token}`, status: 410, text: "This invitation was revoked." },
      {
        path: "/invite/abcdefghijklmnopqrstuvwxyz012345",
        status: 404,
        text: "This invitation link is not valid.",
      },
    ];
    for (const { path, status, text } of cases) {
      const page = await world().openPage();
      const answer = await page.goto(`${baseUrl()}${path}`);
      expect(answer?.status(), path).toBe(status);
      expect(new URL(page.url()).pathname, "no detour to sign-in").toBe(path);
      await page.getByRole("heading", { name: "This invitation can't be used" }).waitFor();
      await page.getByText(text, { exact: false }).waitFor();
      expect(await page.getByLabel("Choose a password").count()).toBe(0);
    }
  });
});

describe("a viewer", () => {
  let viewer: Person;
  beforeAll(async () => {
    viewer = await addPerson(world().stackgate, "viewer", "Vera Viewer");
  });

  test("sees the stacks without deploy buttons, and their role in the user menu", async () => {
    const stacks = await openAs(viewer, "/stacks");
    await stacks.getByRole("table", { name: "Stacks" }).getByText("grafana").first().waitFor();
    expect(await stacks.getByRole("button", { name: /^(Pull|Redeploy) / }).count()).toBe(0);
    // No empty Actions column either.
    expect(await stacks.getByRole("columnheader", { name: "Actions" }).count()).toBe(0);
    expect(await roleInUserMenu(stacks)).toBe("Role: Viewer");
  });

  test("sees a stack's page without deploy, delete or CI controls, and poll-for-updates read-only", async () => {
    const stack = await openAs(viewer, "/stacks/grafana");
    const poll = stack.getByRole("region", { name: "Automatic update checks" });
    await poll.getByText(/^(On|Off) in Komodo\.$/).waitFor();
    expect(await poll.getByRole("switch").count()).toBe(0);
    expect(await stack.getByRole("button", { name: /Redeploy|Pull/ }).count()).toBe(0);
    expect(await stack.getByRole("heading", { name: "Delete stack" }).count()).toBe(0);
    expect(await stack.getByRole("heading", { name: "Deploy from CI" }).count()).toBe(0);
  });

  test("sees the scans without scan buttons", async () => {
    const security = await openAs(viewer, "/security");
    await security.getByText(CRITICAL_IMAGE).filter({ visible: true }).first().waitFor();
    expect(await security.getByRole("button", { name: /^(Scan all|Rescan)/ }).count()).toBe(0);
  });

  test("sees only their account and API keys in Settings, and no admin pages", async () => {
    const settings = await openAs(viewer, "/settings");
    await settings.getByRole("region", { name: "Your account" }).getByText(viewer.email).waitFor();
    await settings.getByRole("region", { name: "API keys" }).waitFor();
    for (const hidden of ["Komodo connection", "Alert channels"])
      expect(await settings.getByRole("region", { name: hidden }).count(), hidden).toBe(0);
    expect(await settings.getByRole("navigation", { name: "Settings sections" }).count()).toBe(0);

    for (const path of ["/settings/alerts", "/settings/people", "/settings/audit"]) {
      const page = await world().openPage({ signedInTo: world().stackgate, as: viewer });
      const answer = await page.goto(`${baseUrl()}${path}`);
      expect(answer?.status(), path).toBe(403);
      await page.getByRole("heading", { name: "Only admins can see this" }).waitFor();
      expect(await page.getByRole("table").count(), path).toBe(0);
    }
  });

  test("gets 403 when forcing the hidden controls through the API", async () => {
    const forced: [string, string, unknown?][] = [
      ["POST", "/api/v0/deploy", { stack: "grafana", action: "pull" }],
      ["POST", "/api/v0/security/scan", {}],
      ["DELETE", "/api/v0/stacks/grafana"],
      ["PUT", "/api/v0/stacks/grafana/poll-for-updates", { enabled: true }],
      ["GET", "/api/v0/users"],
      ["GET", "/api/v0/audit"],
      ["POST", "/api/v0/users/invitations", { email: freshEmail("sneaky"), role: "admin" }],
    ];
    for (const [method, path, body] of forced)
      expect(await statusAs(world().stackgate, viewer, method, path, body), `${method} ${path}`).toBe(403);
  });
});

describe("an admin managing people", () => {
  test("changes a role, disables, enables and deletes a person; the last admin is kept; the audit log lists it all", async () => {
    const person = await addPerson(world().stackgate, "viewer", "Pat Person");
    const page = await world().openSignedIn("/settings/people");
    const people = page.getByRole("table", { name: "People" });
    const row = people.getByRole("row").filter({ hasText: person.email });

    await row.getByLabel("Role of Pat Person").selectOption("deployer");
    await page.getByText("Pat Person is now Deployer").waitFor();
    await expect(row.getByLabel("Role of Pat Person").inputValue()).resolves.toBe("deployer");

    await row.getByRole("button", { name: "Disable Pat Person" }).click();
    const disable = page.getByRole("dialog", { name: "Disable Pat Person?" });
    await disable.getByText("Pat Person is signed out everywhere at once", { exact: false }).waitFor();
    await disable.getByRole("button", { name: "Disable" }).click();
    await row.getByText("Disabled", { exact: true }).waitFor();
    expect(await statusAs(world().stackgate, person, "GET", "/api/v0/me").catch(() => 401)).not.toBe(200);

    await row.getByRole("button", { name: "Enable Pat Person" }).click();
    await row.getByText("Active", { exact: true }).waitFor();

    // The only admin cannot make themselves a viewer: the backend's reason is shown.
    const self = people.getByRole("row").filter({ hasText: world().stackgate.admin.email });
    await self.getByLabel(/^Role of /).selectOption("viewer");
    await page.getByText("last active admin", { exact: false }).first().waitFor();
    await expect(self.getByLabel(/^Role of /).inputValue()).resolves.toBe("admin");
    expect(await self.getByRole("button", { name: /^(Disable|Delete) / }).count()).toBe(0);

    await row.getByRole("button", { name: "Delete Pat Person" }).click();
    const remove = page.getByRole("dialog", { name: "Delete Pat Person?" });
    await remove.getByText(`Pat Person (${person.email}) loses access for good`, { exact: false }).waitFor();
    await remove.getByRole("button", { name: "Delete" }).click();
    await page.getByText("Pat Person was deleted").waitFor();
    await row.waitFor({ state: "detached" });

    await page
      .getByRole("navigation", { name: "Settings sections" })
      .getByRole("link", { name: "Audit log" })
      .click();
    await page.waitForURL(`${baseUrl()}/settings/audit`);
    await hydrated(page);
    const audit = page.getByRole("table", { name: "Audit log" });
    await audit.getByText("user.deleted").waitFor();
    // Said in words, with the stable identifier beside it.
    await audit
      .getByRole("row")
      .filter({ hasText: "user.role-changed" })
      .getByText("Role changed")
      .first()
      .waitFor();
    const actions = await audit
      .locator("tbody tr")
      .evaluateAll(
        (rows, email) =>
          rows
            .filter((row) => row.textContent?.includes(email as string))
            .map((row) => row.querySelector("code")?.textContent ?? ""),
        person.email,
      );
    // Newest first.
    expect(actions.slice(0, 7)).toEqual([
      "user.deleted",
      "user.enabled",
      "user.sessions-revoked",
      "user.disabled",
      "user.role-changed",
      "user.signed-in",
      "invitation.accepted",
    ]);
    await audit
      .getByRole("row")
      .filter({ hasText: "user.role-changed" })
      .filter({ hasText: person.email })
      .getByText("viewer → deployer")
      .waitFor();
  });
});

test("the audit log loads older entries page by page", async () => {
  seedAuditEntries(world().stackgate, 70, "seed.older");
  const page = await world().openSignedIn("/settings/audit");
  const rows = page.getByRole("table", { name: "Audit log" }).locator("tbody tr");
  await rows.first().waitFor();
  expect(await rows.count()).toBe(50);
  expect(await page.getByText("seeded-70", { exact: true }).count()).toBe(0);
  const loadOlder = page.getByRole("button", { name: "Load older" });
  // The sign-ins of the tests before are newer than the seeded entries: the oldest may be pages away.
  const oldestSeeded = page.getByText("seeded-70", { exact: true }).filter({ visible: true });
  for (let more = 0; more < 5 && (await oldestSeeded.count()) === 0; more++) {
    const before = await rows.count();
    await loadOlder.click();
    await expect.poll(() => rows.count()).toBeGreaterThan(before);
  }
  await oldestSeeded.waitFor();
  expect(await rows.count()).toBeGreaterThanOrEqual(70);
  // Newest first across the pages: the seeded entries count back in time.
  const targets = await rows.locator("td:nth-child(4)").allTextContents();
  const seeded = targets.filter((target) => target.startsWith("seeded-")).map((t) => Number(t.slice(7)));
  expect(seeded).toEqual([...seeded].sort((a, b) => a - b));
  // Down to the first entry, then there is nothing more to load.
  for (let more = 0; more < 5 && (await loadOlder.count()) > 0; more++) {
    const before = await rows.count();
    await loadOlder.click();
    await expect.poll(() => rows.count()).toBeGreaterThan(before);
  }
  expect(await loadOlder.count()).toBe(0);
});

test("people, the audit log and the invitation page speak Spanish and fit a phone", async () => {
  const { token } = await invite(world().stackgate, freshEmail("es"), "deployer");
  const checks = [
    { path: "/settings/people", heading: "Invitar a alguien", signedIn: true, shot: "es-people" },
    { path: "/settings/audit", heading: "Registro de cambios", signedIn: true, shot: "es-audit" },
    { path: "/settings", heading: "Tu cuenta", signedIn: true, shot: "es-settings" },
    { path: `/invite/${token}`, heading: "Únete a Stackgate", signedIn: false, shot: "es-invite" },
  ];
  for (const { path, heading, signedIn, shot } of checks) {
    const page = await world().openPage({
      viewport: "mobile",
      lang: "es",
      ...(signedIn ? { signedInTo: world().stackgate } : {}),
    });
    await page.goto(`${baseUrl()}${path}`);
    await hydrated(page);
    await page.getByRole("heading", { name: heading }).first().waitFor();
    expect(await overflowing(page), path).toEqual([]);
    await saveScreenshot(page, shot, "light");
  }
});

describe("your own account", () => {
  test("a deployer changes their name and password; their other sessions end", async () => {
    const stackgate = world().stackgate;
    const deployer = await addPerson(stackgate, "deployer", "Old Name");
    const other = await openAs(deployer, "/settings");
    const page = await openAs(deployer, "/settings");
    const account = page.getByRole("region", { name: "Your account" });
    await account.getByText("Deployer").first().waitFor();

    await account.getByRole("textbox", { name: "Name", exact: true }).fill("New Name");
    await account.getByRole("button", { name: "Save name" }).click();
    await account.getByText("Your name is now New Name").waitFor();
    // The header, another part of the page, follows at once.
    await page.getByRole("button", { name: "Account of New Name" }).waitFor();

    await account.getByLabel("Current password").fill(deployer.password);
    await account.getByLabel("New password").fill("another-long-password");
    await account.getByRole("button", { name: "Change password" }).click();
    await account.getByText("Password changed. Your other sessions have been signed out.").waitFor();

    // The other browser's session is over: its next page is the sign-in page.
    await other.reload();
    expect(new URL(other.url()).pathname).toBe("/sign-in");
    // This one goes on, under the new name.
    await page.reload();
    await hydrated(page);
    await page.getByRole("button", { name: "Account of New Name" }).waitFor();
    expect(
      await statusAs(stackgate, { ...deployer, password: "another-long-password" }, "GET", "/api/v0/me"),
    ).toBe(200);
  });
});
