/**
 * The sign-in page: a real form that works before its script loads and without JavaScript, single
 * sign-on with a real OpenID Provider (oidc-provider, its development login form), password sign-in
 * turned off, and a provider that cannot be reached. English and Spanish, under axe at 1280 and 375 px.
 */

import { freePort, UNREACHABLE_URL } from "@stackgate/simulators";
import Sqlite from "better-sqlite3";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestProvider, type TestProvider } from "../../backend/src/testing/oidc-provider.ts";
import { axeViolations, describeViolations } from "./axe.ts";
import {
  holdRequests,
  hydrated,
  saveScreenshot,
  startBrowser,
  type TestBrowser,
  type ThemeName,
  type ViewportName,
} from "./browser.ts";
import { type Stackgate, startStackgate } from "./harness.ts";
import { invite } from "./people-setup.ts";

const PROVIDER_NAME = "Authentik";
const ROLES = {
  OIDC_NAME: PROVIDER_NAME,
  OIDC_DEPLOYER_VALUES: "stackgate-deployers",
  OIDC_ADMIN_VALUES: "ops",
};

let browser: TestBrowser;
let provider: TestProvider;
/** Password and single sign-on both on. */
let both: Stackgate;
/** PASSWORD_SIGN_IN=false and OIDC_AUTO_REDIRECT=true. */
let ssoOnly: Stackgate;
/** A provider nobody answers at. */
let providerDown: Stackgate;

beforeAll(async () => {
  const gatewayPorts = [await freePort(), await freePort()] as const;
  provider = await startTestProvider({ appUrl: gatewayPorts.map((port) => `http://127.0.0.1:${port}`) });
  [browser, both, ssoOnly, providerDown] = await Promise.all([
    startBrowser(),
    startStackgate({ gatewayPort: gatewayPorts[0], env: { backend: { ...provider.env, ...ROLES } } }),
    startStackgate({
      gatewayPort: gatewayPorts[1],
      env: { backend: { ...provider.env, ...ROLES, PASSWORD_SIGN_IN: "false", OIDC_AUTO_REDIRECT: "true" } },
    }),
    startStackgate({
      env: {
        backend: {
          OIDC_ISSUER_URL: UNREACHABLE_URL,
          OIDC_CLIENT_ID: "stackgate",
          OIDC_CLIENT_SECRET: "never-reached-secret",
          OIDC_NAME: PROVIDER_NAME,
        },
      },
    }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([both?.stop(), ssoOnly?.stop(), providerDown?.stop()]);
  await provider?.close();
});

const roleOf = (stackgate: Stackgate, email: string) => {
  const db = new Sqlite(`${stackgate.dataDir}/db.sqlite`, { readonly: true });
  try {
    return db.prepare("select role, role_from_sso as roleFromSso from user where email = ?").get(email);
  } finally {
    db.close();
  }
};

/** A form post as a browser without JavaScript sends it. */
const postForm = (
  stackgate: Stackgate,
  fields: Record<string, string>,
  { origin = stackgate.baseUrl, next = "/history" }: { origin?: string; next?: string } = {},
) =>
  fetch(`${stackgate.baseUrl}/sign-in?next=${encodeURIComponent(next)}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams(fields).toString(),
  });

describe("the password form before and without the page's script", () => {
  test("typed and sent with Enter before hydration, it arrives signed in", async () => {
    const page = await browser.openPage({ baseUrl: both.baseUrl });
    const releaseScripts = await holdRequests(page, "**/_astro/**/*.js");
    await page.goto(`${both.baseUrl}/sign-in`, { waitUntil: "domcontentloaded" });
    expect(await page.locator("astro-island[ssr]").count()).toBeGreaterThan(0);
    await page.getByLabel("Email").fill(both.admin.email);
    await page.getByLabel("Password").fill(both.admin.password);
    await Promise.all([page.waitForURL(`${both.baseUrl}/`), page.getByLabel("Password").press("Enter")]);
    releaseScripts();
    await page.getByRole("button", { name: /^Account/ }).waitFor();
    expect(await browser.finishTest()).toEqual([]);
  });

  test("what was typed before the script loads stays, and the script then signs in", async () => {
    const page = await browser.openPage({ baseUrl: both.baseUrl });
    const releaseScripts = await holdRequests(page, "**/_astro/**/*.js");
    await page.goto(`${both.baseUrl}/sign-in?next=/history`, { waitUntil: "domcontentloaded" });
    await page.getByLabel("Email").fill(both.admin.email);
    await page.getByLabel("Password").fill("not-the-password");
    releaseScripts();
    await hydrated(page);
    expect(await page.getByLabel("Email").inputValue()).toBe(both.admin.email);
    expect(await page.getByLabel("Password").inputValue()).toBe("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "Wrong email or password." }).waitFor();
    expect(page.url()).toBe(`${both.baseUrl}/sign-in?next=/history`);
    expect(await browser.finishTest()).toEqual([]);
  });

  test("without JavaScript: the server signs in, passes the session cookie on and redirects", async () => {
    const signedIn = await postForm(both, { email: both.admin.email, password: both.admin.password });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe("/history");
    const cookie = signedIn.headers.getSetCookie().find((line) => line.includes("session_token="));
    expect(cookie).toMatch(/HttpOnly/i);
    const history = await fetch(`${both.baseUrl}/history`, {
      redirect: "manual",
      headers: { cookie: cookie!.split(";")[0]! },
    });
    expect(history.status).toBe(200);
  });

  test("a next that normalises into another site's address sends the browser home instead", async () => {
    for (const next of [
      "/.//evil.example/x",
      "/..//evil.example/x",
      "/%2e//evil.example/x",
      "//evil.example/x",
    ]) {
      const signedIn = await postForm(
        both,
        { email: both.admin.email, password: both.admin.password },
        { next },
      );
      expect(signedIn.status, next).toBe(303);
      expect(signedIn.headers.get("location"), next).toBe("/");
      // Signed in already, the sign-in page sends the browser on to `next` at once.
      const cookie = signedIn.headers.getSetCookie().find((line) => line.includes("session_token="));
      const onward = await fetch(`${both.baseUrl}/sign-in?next=${encodeURIComponent(next)}`, {
        redirect: "manual",
        headers: { cookie: cookie!.split(";")[0]! },
      });
      expect(onward.status, next).toBe(303);
      expect(onward.headers.get("location"), next).toBe("/");
    }
  });

  test("without JavaScript: a wrong password and a lockout show inline, keeping the email", async () => {
    const wrong = await postForm(both, { email: "someone@stackgate.test", password: "wrong-password" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.getSetCookie().join()).not.toMatch(/session_token=/);
    const page = await wrong.text();
    expect(page).toContain("Wrong email or password.");
    expect(page).toContain('value="someone@stackgate.test"');
    expect(page).not.toContain("wrong-password");
    // Ten failures lock the account (SIGN_IN_MAX_FAILURES_PER_ACCOUNT): the page says when to try again.
    let locked: Response | undefined;
    for (let attempt = 0; attempt < 11; attempt++)
      locked = await postForm(both, { email: "locked@stackgate.test", password: `wrong-${attempt}` });
    expect(locked!.status).toBe(429);
    expect(await locked!.text()).toMatch(/Try again in 1[45] min\./);
  });

  test("a form post from another site is refused", async () => {
    const response = await postForm(
      both,
      { email: both.admin.email, password: both.admin.password },
      { origin: "https://evil.example" },
    );
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie().join()).not.toMatch(/session_token=/);
  });
});

/** Signs in on the provider's development form and gives consent. */
async function signInAtProvider(page: Page, login: string) {
  await page.waitForURL(`${provider.issuer}/**`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.locator('button[type="submit"]').click();
  await page.getByRole("button", { name: "Continue" }).click();
}

describe("single sign-on in the browser", () => {
  test("the button signs a person in at the provider and back on the page asked for, with the mapped role", async () => {
    provider.setAccount("sub-grace", {
      email: "grace@stackgate.test",
      email_verified: true,
      name: "Grace Hopper",
      groups: ["everyone", "stackgate-deployers"],
    });
    const page = await browser.openPage({ baseUrl: both.baseUrl });
    await page.goto(`${both.baseUrl}/history`);
    await page.waitForURL(/\/sign-in\?next=%2Fhistory$/);
    await page.getByRole("link", { name: `Sign in with ${PROVIDER_NAME}` }).click();
    await signInAtProvider(page, "sub-grace");
    await page.waitForURL(`${both.baseUrl}/history`);
    await page.getByRole("button", { name: /^Account of Grace Hopper/ }).waitFor();
    expect(roleOf(both, "grace@stackgate.test")).toEqual({ role: "deployer", roleFromSso: 1 });
    expect(await browser.finishTest()).toEqual([]);
  });

  test("a person whose groups map to no role is sent back to a page that says why and who to ask", async () => {
    provider.setAccount("sub-nobody", {
      email: "nobody@stackgate.test",
      email_verified: true,
      groups: ["sales"],
    });
    const page = await browser.openPage({ baseUrl: both.baseUrl, lang: "es" });
    await page.goto(`${both.baseUrl}/sign-in`);
    await page.getByRole("link", { name: `Entrar con ${PROVIDER_NAME}` }).click();
    await signInAtProvider(page, "sub-nobody");
    await page.waitForURL(`${both.baseUrl}/sign-in?sso_error=no-role`);
    const alert = page.getByRole("alert");
    await expect(alert.textContent()).resolves.toContain(
      "no pertenece a ningún grupo con acceso a Stackgate",
    );
    await expect(alert.textContent()).resolves.toContain("Pide a un administrador de Stackgate");
    expect(roleOf(both, "nobody@stackgate.test")).toBeUndefined();
    expect(await browser.finishTest()).toEqual([]);
  });

  test("an invitation opened in the browser continues at the provider, and the person arrives with the invited role", async () => {
    const email = "ivy@stackgate.test";
    // Groups that map to no role: the invitation decides.
    provider.setAccount("sub-ivy", { email, email_verified: true, name: "Ivy Invited", groups: ["sales"] });
    const { token } = await invite(both, email, "viewer");
    const page = await browser.openPage({ baseUrl: both.baseUrl });
    await page.goto(`${both.baseUrl}/invite/${token}`);
    await page.getByRole("link", { name: `Continue with ${PROVIDER_NAME}` }).click();
    await signInAtProvider(page, "sub-ivy");
    await page.getByRole("button", { name: /^Account of Ivy Invited/ }).waitFor();
    expect(new URL(page.url()).origin).toBe(both.baseUrl);
    expect(roleOf(both, email)).toEqual({ role: "viewer", roleFromSso: 0 });
    // The link is used up: opened again, it says so.
    const again = await browser.openPage({ baseUrl: both.baseUrl });
    await again.goto(`${both.baseUrl}/invite/${token}`);
    await again.getByText("This invitation has already been used", { exact: false }).waitFor();
    expect(await browser.finishTest()).toEqual([]);
  });

  test("with password sign-in off, the page goes straight to the provider, except to show a refusal", async () => {
    const page = await browser.openPage({ baseUrl: ssoOnly.baseUrl });
    await page.goto(`${ssoOnly.baseUrl}/sign-in`);
    await page.waitForURL(`${provider.issuer}/**`);
    await page.goto(`${ssoOnly.baseUrl}/sign-in?sso_error=no-role`);
    await page.getByRole("alert").waitFor();
    expect(await page.getByLabel("Password").count()).toBe(0);
    await page.getByRole("link", { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
    const refused = await fetch(`${ssoOnly.baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ssoOnly.baseUrl },
      body: JSON.stringify({ email: ssoOnly.admin.email, password: ssoOnly.admin.password }),
    });
    expect(refused.status).toBe(403);
    expect(await browser.finishTest()).toEqual([]);
  });

  test("a provider that cannot be reached is named on the page, and password sign-in still works", async () => {
    const page = await browser.openPage({ baseUrl: providerDown.baseUrl });
    await page.goto(`${providerDown.baseUrl}/sign-in`);
    const notice = page
      .getByRole("status")
      .filter({ hasText: `Sign-in with ${PROVIDER_NAME} is not available` });
    await expect(notice.textContent()).resolves.toMatch(/Password sign-in still works.*cannot be reached/);
    expect(await page.getByRole("link", { name: `Sign in with ${PROVIDER_NAME}` }).count()).toBe(0);
    await hydrated(page);
    await page.getByLabel("Email").fill(providerDown.admin.email);
    await page.getByLabel("Password").fill(providerDown.admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${providerDown.baseUrl}/`);
    expect(await browser.finishTest()).toEqual([]);
    expect(providerDown.backend.output()).not.toContain("never-reached-secret");
  });
});

describe("under axe", () => {
  const states: { name: string; stackgate: () => Stackgate; path: string }[] = [
    { name: "password and single sign-on", stackgate: () => both, path: "/sign-in" },
    { name: "a refused single sign-on", stackgate: () => both, path: "/sign-in?sso_error=unverified-email" },
    { name: "single sign-on only", stackgate: () => ssoOnly, path: "/sign-in?sso_error=disabled" },
    { name: "the provider down", stackgate: () => providerDown, path: "/sign-in" },
  ];
  for (const viewport of ["desktop", "mobile"] as const satisfies ViewportName[]) {
    for (const [lang, theme] of [
      ["en", "light"],
      ["es", "dark"],
    ] as const satisfies [string, ThemeName][]) {
      test(`every state of the page at ${viewport} width, in ${lang}, ${theme} theme`, async () => {
        const found: string[] = [];
        for (const state of states) {
          const page = await browser.openPage({ baseUrl: state.stackgate().baseUrl, viewport, theme, lang });
          await page.goto(`${state.stackgate().baseUrl}${state.path}`);
          if (await page.locator("astro-island").count()) await hydrated(page);
          found.push(...describeViolations(`${state.name} (${lang})`, await axeViolations(page)));
          await saveScreenshot(page, `sign-in-${state.name.replaceAll(" ", "-")}-${lang}`, theme);
        }
        expect(found, `axe found:\n${found.join("\n")}`).toEqual([]);
        expect(await browser.finishTest()).toEqual([]);
      });
    }
  }
});
