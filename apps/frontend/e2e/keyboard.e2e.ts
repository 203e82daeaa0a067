/**
 * The dashboard by keyboard alone: deploying from the stack list and from a stack's page, where focus
 * goes after the confirmation, focus stops that must never end hidden under the sticky header (or a
 * table's sticky header row, or a toast), and scrolling boxes reached and scrolled from the keyboard.
 */
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import type { ViewportName } from "./browser.ts";
import { deployWithKey } from "./komodo-setup.ts";
import { scansSettled, stackWorldOfThisFile } from "./stack-world.ts";

const world = stackWorldOfThisFile({}, async (scene) => {
  // A failure in the history, so the stack's page has a recent-deploys table with a long message.
  await deployWithKey(scene.stackgate, scene.apiKey, "outline", "redeploy");
  await scansSettled(scene);
});

interface FocusStop {
  /** The focused element as a person would name it: tag, role and accessible label or text. */
  what: string;
  /** What covers the visible part of the focused element, or why it cannot be seen; null when seen. */
  hiddenBy: string | null;
  /** Nothing is focused: the page body has it. */
  lost: boolean;
}

/** Where focus is now, once the browser has scrolled it into view. */
function focusStop(page: Page): Promise<FocusStop> {
  return page.evaluate(async () => {
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const describe = (element: Element) => {
      const label =
        element.getAttribute("aria-label") ?? element.textContent?.trim().replace(/\s+/g, " ").slice(0, 50);
      const role = element.getAttribute("role");
      return `${element.tagName.toLowerCase()}${role ? `[role=${role}]` : ""} "${label}"`;
    };
    const focused = document.activeElement;
    if (!focused || focused === document.body) return { what: "body", hiddenBy: null, lost: true };
    const box = focused.getBoundingClientRect();
    // The part of the element inside the window; its middle must show the element itself.
    const left = Math.max(box.left, 0);
    const right = Math.min(box.right, window.innerWidth);
    const top = Math.max(box.top, 0);
    const bottom = Math.min(box.bottom, window.innerHeight);
    let hiddenBy: string | null = null;
    if (right <= left || bottom <= top) hiddenBy = "outside the window";
    else {
      const hit = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
      if (!hit) hiddenBy = "nothing at its place";
      else if (!focused.contains(hit) && !hit.contains(focused)) {
        const cover = hit.closest("header, thead, section[aria-label], li") ?? hit;
        hiddenBy = describe(cover);
      }
    }
    return { what: describe(focused), hiddenBy, lost: false };
  });
}

/** Presses Tab (or Shift+Tab) until `found` says yes; every stop on the way must be visible. */
async function tabUntil(
  page: Page,
  found: (stop: FocusStop) => boolean,
  { backwards = false, limit = 250 } = {},
): Promise<{ stop: FocusStop; hidden: string[] }> {
  const hidden: string[] = [];
  for (let press = 0; press < limit; press++) {
    await page.keyboard.press(backwards ? "Shift+Tab" : "Tab");
    const stop = await focusStop(page);
    if (stop.hiddenBy) hidden.push(`${stop.what} under ${stop.hiddenBy}`);
    if (found(stop)) return { stop, hidden };
  }
  throw new Error(`no matching focus stop within ${limit} presses of ${backwards ? "Shift+Tab" : "Tab"}`);
}

const named = (label: string) => (stop: FocusStop) => stop.what.endsWith(` "${label}"`);

/** Opens the confirmation on the focused button, moves to its confirm button and presses it. */
async function confirmByKeyboard(page: Page, dialogName: string, confirmLabel: string) {
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: dialogName });
  await dialog.waitFor();
  // A destructive action: focus starts on Cancel; the confirm button is one Tab away.
  expect((await focusStop(page)).what).toBe('button "Cancel"');
  await tabUntil(page, named(confirmLabel), { limit: 3 });
  await page.keyboard.press("Enter");
  await dialog.waitFor({ state: "hidden" });
}

async function deployByKeyboard(page: Page, stack: string) {
  const toButton = await tabUntil(page, named(`Redeploy ${stack}`));
  expect(toButton.hidden).toEqual([]);
  await confirmByKeyboard(page, `Redeploy ${stack}?`, "Redeploy");

  // Focus is back on the button, which stays focusable (aria-disabled) while the deploy runs.
  const afterConfirm = await focusStop(page);
  expect(afterConfirm).toEqual({ what: `button "Redeploy ${stack}"`, hiddenBy: null, lost: false });
  const button = page.getByRole("button", { name: `Redeploy ${stack}`, exact: true });
  await expect(button.getAttribute("aria-disabled")).resolves.toBe("true");

  await page
    .getByRole("region", { name: "Notifications" })
    .getByText(`Redeployed ${stack}`)
    .waitFor({ timeout: 15_000 });
  expect((await focusStop(page)).what).toBe(`button "Redeploy ${stack}"`);
  // The next stop is in view, not behind the toast.
  const next = await tabUntil(page, () => true, { limit: 1 });
  expect(next.stop.lost).toBe(false);
  expect(next.hidden).toEqual([]);
}

describe("deploying by keyboard alone", () => {
  test("from the stack list: focus stays on the row's button through the deploy", async () => {
    world().komodo.faults.setStack("grafana", { updateDelayMs: 1_500 });
    const page = await world().openSignedIn("/stacks");
    await page.getByRole("table", { name: "Stacks" }).waitFor();
    await deployByKeyboard(page, "grafana");
  });

  test("from a stack's page on a phone", async () => {
    world().komodo.faults.setStack("gitea", { updateDelayMs: 1_500 });
    const page = await world().openSignedIn("/stacks/gitea", { viewport: "mobile" });
    await page.getByRole("heading", { level: 1, name: "gitea" }).waitFor();
    await deployByKeyboard(page, "gitea");
  });
});

/** Every focus stop of a whole page, walked backwards from its end (the harder direction). */
async function hiddenStops(page: Page, direction: "forwards" | "backwards"): Promise<string[]> {
  // Long lists render in steps, after hydration and as the end of the list comes into view: walk
  // once the page has its full length, or the end reached first may be pushed below the window by
  // rows still being added above it. Walking backwards starts at the end, which may add rows again.
  const fullLength = async () => {
    await page.evaluate(() => {
      (window as unknown as { sameFor?: number }).sameFor = 0;
    });
    await page.waitForFunction(
      () => {
        const state = window as unknown as { lastHeight?: number; sameFor?: number };
        const height = document.body.scrollHeight;
        state.sameFor = height === state.lastHeight ? (state.sameFor ?? 0) + 1 : 0;
        state.lastHeight = height;
        return state.sameFor >= 5;
      },
      undefined,
      { polling: 100 },
    );
  };
  await fullLength();
  if (direction === "backwards") {
    for (let height = 0; height !== (await page.evaluate(() => document.body.scrollHeight)); ) {
      height = await page.evaluate(() => document.body.scrollHeight);
      await page.evaluate((bottom) => window.scrollTo({ top: bottom, behavior: "instant" }), height);
      await fullLength();
    }
  }
  const seen = new Set<string>();
  const hidden: string[] = [];
  for (let press = 0; press < 400; press++) {
    await page.keyboard.press(direction === "backwards" ? "Shift+Tab" : "Tab");
    const stop = await focusStop(page);
    if (stop.lost) break;
    const where = await page.evaluate(() => {
      const path: number[] = [];
      for (let node: Element | null = document.activeElement; node?.parentElement; node = node.parentElement)
        path.push([...node.parentElement.children].indexOf(node));
      return path.join(".");
    });
    if (seen.has(where)) break; // round the page once
    seen.add(where);
    if (stop.hiddenBy) hidden.push(`${stop.what} under ${stop.hiddenBy}`);
  }
  expect(seen.size).toBeGreaterThan(10);
  return hidden;
}

describe("no focus stop ends under a sticky header", () => {
  const walks: [ViewportName, string, "forwards" | "backwards"][] = [
    ["mobile", "/security", "backwards"],
    ["mobile", "/stacks", "backwards"],
    ["mobile", "/history", "backwards"],
    ["desktop", "/security", "backwards"],
    ["desktop", "/security", "forwards"],
    ["desktop", "/stacks", "backwards"],
  ];
  for (const [viewport, path, direction] of walks) {
    test(`${path} at ${viewport} width, ${direction}`, async () => {
      const page = await world().openSignedIn(path, { viewport });
      await page.waitForFunction(() => !document.querySelector('[class~="motion-safe:animate-pulse"]'));
      expect(await hiddenStops(page, direction)).toEqual([]);
    });
  }
});

test("the scrolling boxes of a stack's page on a phone are reached and scrolled from the keyboard", async () => {
  const page = await world().openSignedIn("/stacks/outline", { viewport: "mobile" });
  const deploys = page.getByRole("table", { name: "Recent deploys of outline" });
  await deploys.waitFor();
  // The deploys' box is scrolled by Tab through the runs it links to; the code boxes hold no link.
  expect(await deploys.getByRole("link", { name: /^(Succeeded|Failed): / }).count()).toBeGreaterThan(0);
  const boxes = ["curl", "GitHub Actions step"];
  const scrolled: string[] = [];
  const isBox = (stop: FocusStop) => /^(div|pre)\[role=region\] /.test(stop.what);
  // One walk through the page in Tab order; each scrolling box on the way is scrolled with the arrows.
  for (let box = 0; box < boxes.length; box++) {
    const reached = await tabUntil(page, isBox);
    expect(reached.hidden).toEqual([]);
    const name = reached.stop.what.replace(/^[^"]*"|"$/g, "");
    const region = page.getByRole("region", { name, exact: true });
    expect(await region.evaluate((element) => element.scrollLeft)).toBe(0);
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => region.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
    scrolled.push(name);
  }
  expect(scrolled.sort()).toEqual(boxes.sort());
});
