/**
 * A Stackgate wired to the simulators, for the browser tests of the data pages: a Komodo simulator
 * with stacks whose images the stand-in Trivy knows (`critical`, `private`, `clean`, `slow`), an ntfy
 * receiver, and small API helpers for setting the scene the way a person or a pipeline would.
 */
import {
  type KomodoSimulator,
  type NtfyReceiver,
  type StackSeed,
  standInTrivyPath,
  startKomodoSimulator,
  startNtfyReceiver,
} from "@stackgate/simulators";
import type { Page } from "playwright-core";
import { afterAll, afterEach, expect } from "vitest";
import type { TestBrowser } from "./browser.ts";
import { type Stackgate, startStackgate } from "./harness.ts";

export const IMAGES = {
  critical: "ghcr.io/acme/web-critical:1.4",
  clean: "docker.io/library/redis:7.4-clean",
  private: "registry.example.com/private/billing:2.1",
  plain: "ghcr.io/acme/docs:2.0",
  slow: "ghcr.io/acme/search-slow:1.0",
} as const;

export const FAILING_DEPLOY_ERROR =
  "Error response from daemon: driver failed programming external connectivity on endpoint " +
  "worker-worker-1 (3f9c2d7e1b0a): Bind for 0.0.0.0:3000 failed: port is already allocated";

export const STACKS: StackSeed[] = [
  {
    name: "web",
    services: [
      { service: "web", image: IMAGES.critical },
      { service: "cache", image: IMAGES.clean },
    ],
  },
  { name: "billing", services: [{ service: "api", image: IMAGES.private }] },
  { name: "docs", services: [{ service: "docs", image: IMAGES.plain }] },
  {
    name: "worker",
    services: [{ service: "worker", image: IMAGES.plain }],
    faults: { failWith: FAILING_DEPLOY_ERROR },
  },
];

export interface Scenario {
  stackgate: Stackgate;
  komodo: KomodoSimulator;
  ntfy: NtfyReceiver;
  stop(): Promise<void>;
}

export interface ScenarioOptions {
  stacks?: StackSeed[];
  /** The token the ntfy receiver demands, if any. */
  ntfyToken?: string;
  backendEnv?: Record<string, string>;
}

export async function startScenario(options: ScenarioOptions = {}): Promise<Scenario> {
  const [komodo, ntfy] = await Promise.all([
    startKomodoSimulator({ stacks: options.stacks ?? STACKS }),
    startNtfyReceiver({ token: options.ntfyToken }),
  ]);
  try {
    const stackgate = await startStackgate({
      env: { backend: { TRIVY_BIN: standInTrivyPath, ...options.backendEnv } },
    });
    return {
      stackgate,
      komodo,
      ntfy,
      async stop() {
        await stackgate.stop();
        await Promise.all([komodo.close(), ntfy.close()]);
      },
    };
  } catch (error) {
    await Promise.all([komodo.close(), ntfy.close()]);
    throw error;
  }
}

/**
 * What sticks out of the window sideways, outermost first (empty when the page itself never scrolls
 * sideways; a table scrolling inside its own container is fine).
 */
export function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    if (document.documentElement.scrollWidth <= window.innerWidth) return [];
    const culprits: string[] = [];
    for (const element of document.body.querySelectorAll("*")) {
      const box = element.getBoundingClientRect();
      if (box.right <= window.innerWidth + 1 || box.width === 0) continue;
      if (element.parentElement && culprits.length > 0 && culprits.length >= 5) break;
      culprits.push(`${element.tagName.toLowerCase()}.${element.className} (${Math.round(box.right)} px)`);
    }
    return culprits;
  });
}

/** Whether a table is wider than its scrolling box (the Table design: it scrolls inside, the page does not). */
export function tableScrollsSideways(page: Page, name: string): Promise<boolean> {
  return page.getByRole("table", { name }).evaluate((table) => {
    const box = table.parentElement;
    return box !== null && box.scrollWidth > box.clientWidth;
  });
}

/**
 * The hooks every scenario browser test file shares: after each test its pages close and must have
 * reported no errors; after all, the browser and the scenario stop.
 */
export function endTestsOf(parts: () => { browser?: TestBrowser; scenario?: Scenario }) {
  afterEach(async () => {
    expect(await parts().browser!.finishTest()).toEqual([]);
  });
  afterAll(async () => {
    const { browser, scenario } = parts();
    await Promise.all([browser?.close(), scenario?.stop()]);
  });
}
