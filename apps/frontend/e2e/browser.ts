/**
 * Browser side of the end-to-end tests: Debian's Chromium through playwright-core, pages that record
 * their own errors, sign-in through the API, hydration waits and screenshots.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { chromiumPath } from "../../../scripts/chromium.ts";
import { repoRoot, type Stackgate } from "./harness.ts";

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 375, height: 812 },
} as const;

export type ViewportName = keyof typeof VIEWPORTS;
export type ThemeName = "light" | "dark";

export interface OpenPageOptions {
  /** The origin the page talks to: normally `stackgate.baseUrl` (the gateway). */
  baseUrl: string;
  viewport?: ViewportName;
  /** Sets the sg_theme cookie first, as a returning visitor would have it. */
  theme?: ThemeName;
  /** Sets the sg_lang cookie first. */
  lang?: "en" | "es";
  /** Starts with this instance's admin already signed in (through the API, not the form). */
  signedInTo?: Stackgate;
  /** With `signedInTo`: another person than the admin. */
  as?: SignInCredentials;
}

export interface SignInCredentials {
  email: string;
  password: string;
}

export interface TestBrowser {
  openPage(options: OpenPageOptions): Promise<Page>;
  /**
   * Returns and forgets what went wrong in any page so far: uncaught exceptions and console errors
   * (React hydration mismatches among them). Chromium's "Failed to load resource" lines for
   * deliberate 401/404/503 answers are left out.
   */
  takeErrors(): string[];
  /**
   * Closes every page opened so far and returns what went wrong in them (as `takeErrors`). Pages
   * left open keep their event streams, queries and timers running and slow down every test after
   * them (the /stacks time to interactive doubled).
   */
  finishTest(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Chromium's new headless mode builds the omnibox's WebUI popups for every window, in a renderer of
 * their own: one extra renderer per page the tests open (10 pages: 1.2 s less CPU and 4-7 s less
 * time on the loaded 2-core machine without them). Nothing a test looks at uses them.
 */
const NEEDLESS_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];
/**
 * Playwright passes its own --disable-features, and Chromium keeps only the last one: ours has to
 * repeat Playwright's list (playwright-core's chromiumSwitches, as of the version below). With any other
 * version the popups are left alone rather than risk switching its features back on.
 */
const PLAYWRIGHT_DISABLED_FEATURES = {
  version: "1.65.1",
  features: [
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
  ],
};

function disabledFeaturesSwitch(): string[] {
  const { version } = createRequire(import.meta.url)("playwright-core/package.json") as { version: string };
  if (version !== PLAYWRIGHT_DISABLED_FEATURES.version) return [];
  return [`--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES.features, ...NEEDLESS_FEATURES].join(",")}`];
}

export async function startBrowser(): Promise<TestBrowser> {
  // Chromium writes caches and settings under XDG directories: keep them out of the home directory.
  const profileRoot = mkdtempSync(join(tmpdir(), "stackgate-chromium-"));
  const browser: Browser = await chromium.launch({
    executablePath: chromiumPath(),
    // Without these, Chromium tries to reach the internet at every start.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      ...disabledFeaturesSwitch(),
    ],
    env: { ...process.env, XDG_CONFIG_HOME: profileRoot, XDG_CACHE_HOME: profileRoot },
  });
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];
  /** Pages being closed: what they report while they go away is not a test's error. */
  const retired = new WeakSet<Page>();

  return {
    async openPage({ baseUrl, viewport = "desktop", theme, lang, signedInTo, as }) {
      const context = await browser.newContext({
        viewport: VIEWPORTS[viewport],
        locale: "en-GB",
        colorScheme: "light",
        // The dashboard animates only for motion-safe: without the animations (a live dot pulsing
        // on every page) Chromium repaints far less (stacks.e2e.ts: 96 s of Chromium's CPU, 76 s).
        reducedMotion: "reduce",
      });
      contexts.push(context);
      const cookies = [
        ...(theme ? [{ name: "sg_theme", value: theme }] : []),
        ...(lang ? [{ name: "sg_lang", value: lang }] : []),
        ...(signedInTo ? await signedInCookies(signedInTo, as) : []),
      ];
      if (cookies.length > 0)
        await context.addCookies(cookies.map((cookie) => ({ ...cookie, url: baseUrl })));
      const page = await context.newPage();
      page.on("pageerror", (error) => {
        if (!retired.has(page)) errors.push(`${page.url()}: ${error.message}`);
      });
      page.on("console", (message) => {
        if (retired.has(page)) return;
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
          errors.push(`${page.url()}: ${message.text()}`);
        }
      });
      return page;
    },
    takeErrors: () => errors.splice(0),
    async finishTest() {
      const seen = errors.splice(0);
      const open = contexts.splice(0);
      for (const context of open) for (const page of context.pages()) retired.add(page);
      await Promise.all(open.map((context) => context.close()));
      return seen;
    },
    async close() {
      await Promise.all(contexts.map((context) => context.close()));
      await browser.close();
      rmSync(profileRoot, { recursive: true, force: true });
    },
  };
}

/**
 * The cookies for a page opened `signedInTo` an instance: the admin's shared session (see
 * `adminSession`), or a fresh sign-in for anyone else, so that a test can give one person two
 * sessions (another browser, whose session a password change ends).
 */
function signedInCookies(stackgate: Stackgate, who?: SignInCredentials) {
  return who === undefined || who.email === stackgate.admin.email
    ? adminSession(stackgate)
    : sessionCookies(stackgate, who);
}

const adminSessions = new WeakMap<Stackgate, Promise<{ name: string; value: string }[]>>();

/**
 * The admin's session on this instance: signed in once, then reused for as long as the server still
 * knows it (a test may sign it out, change the password or end every session). A password sign-in
 * costs the backend a memory-hard scrypt hash, which under load took 1 to 6 s of the machine's time;
 * the check whether the session still lives is a plain read. The sign-in itself is tested through the
 * form (sign-in and shell tests), never through this.
 */
export async function adminSession(stackgate: Stackgate): Promise<{ name: string; value: string }[]> {
  const kept = await adminSessions.get(stackgate)?.catch(() => undefined);
  if (kept && (await sessionIsLive(stackgate, kept))) return kept;
  const fresh = sessionCookies(stackgate);
  adminSessions.set(stackgate, fresh);
  return fresh;
}

async function sessionIsLive(stackgate: Stackgate, cookies: { name: string; value: string }[]) {
  const response = await fetch(`${stackgate.baseUrl}/api/auth/get-session`, {
    headers: { cookie: cookies.map(({ name, value }) => `${name}=${value}`).join("; ") },
  });
  if (!response.ok) {
    await response.body?.cancel();
    return false;
  }
  const body = (await response.json()) as { session?: unknown } | null;
  return Boolean(body?.session);
}

/** Signs the admin (or `who`) in through Better Auth and returns the session cookie(s) it sets. */
export async function sessionCookies(
  stackgate: Stackgate,
  who: SignInCredentials = stackgate.admin,
): Promise<{ name: string; value: string }[]> {
  const response = await fetch(`${stackgate.baseUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: stackgate.baseUrl },
    body: JSON.stringify({ email: who.email, password: who.password }),
  });
  if (!response.ok) throw new Error(`API sign-in failed: HTTP ${response.status} ${await response.text()}`);
  return response.headers.getSetCookie().map((header) => {
    const [pair = ""] = header.split(";");
    const separator = pair.indexOf("=");
    return { name: pair.slice(0, separator), value: pair.slice(separator + 1) };
  });
}

/** Islands are server-rendered first; their controls work once Astro has hydrated every one of them. */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector("astro-island[ssr]"));
}

/**
 * Holds the page's requests to URLs matching `pattern` (a glob) until the returned function is
 * called, so that a test can look at the page while they are on their way.
 */
export async function holdRequests(page: Page, pattern: string): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(pattern, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

/**
 * Saves the full page as `<name>-<width>-<theme>.png` in `SCREENSHOT_DIR` (relative to the repository
 * root) when that is set, for a person to look at (shared/design/UI.md); otherwise nothing. No test
 * compares them: what a page must show is asserted by the tests themselves.
 */
export async function saveScreenshot(page: Page, name: string, theme: ThemeName): Promise<void> {
  if (!process.env.SCREENSHOT_DIR) return;
  const dir = resolve(repoRoot, process.env.SCREENSHOT_DIR);
  mkdirSync(dir, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: join(dir, `${name}-${width}-${theme}.png`), fullPage: true });
}
