/**
 * The world the stacks and overview browser tests run in: a Komodo simulator in this process with the
 * demo stacks (plus one image the stand-in trivy always finds critical), Stackgate connected to it with
 * the stand-in trivy as scanner, an API key for "pipeline" requests, and a browser.
 */
import {
  demoStacks,
  generateStacks,
  type KomodoSimulator,
  type StackSeed,
  standInTrivyPath,
  startKomodoSimulator,
} from "@stackgate/simulators";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { hydrated, type OpenPageOptions, startBrowser, type TestBrowser } from "./browser.ts";
import { type Stackgate, startStackgate } from "./harness.ts";
import { connectKomodo, createApiKey } from "./komodo-setup.ts";

/** The stand-in trivy reports at least one critical finding for any image whose name says "critical". */
export const CRITICAL_IMAGE = "registry.example.com/acme/critical-legacy:1.0";
export const API_KEY_NAME = "deploy-web";

export function worldStacks(): StackSeed[] {
  return [...demoStacks(), { name: "legacy", services: [{ service: "app", image: CRITICAL_IMAGE }] }];
}

export interface StackWorld {
  komodo: KomodoSimulator;
  stackgate: Stackgate;
  browser: TestBrowser;
  apiKey: string;
  openPage(options?: Partial<OpenPageOptions>): Promise<Page>;
  /** A signed-in page showing `path`, hydrated. */
  openSignedIn(path: string, options?: Partial<OpenPageOptions>): Promise<Page>;
  close(): Promise<void>;
}

export interface StackWorldOptions {
  /** Extra environment for the frontend, e.g. `{ STACKGATE_DEMO: "1" }` for the demo banner. */
  frontendEnv?: Record<string, string>;
  /** The simulator's stacks; default `worldStacks()`. */
  stacks?: StackSeed[];
  /** Extra environment for the backend, e.g. a short settle window (`SETTLE_SECONDS`). */
  backendEnv?: Record<string, string>;
}

export async function startStackWorld({
  frontendEnv = {},
  stacks = worldStacks(),
  backendEnv = {},
}: StackWorldOptions = {}): Promise<StackWorld> {
  const komodo = await startKomodoSimulator({ stacks });
  const [stackgate, browser] = await Promise.all([
    startStackgate({
      // The background sweep would rescan at random moments; the listing queues what the tests need.
      env: {
        backend: { TRIVY_BIN: standInTrivyPath, SCANNER_SWEEP_DELAY_SECONDS: "3600", ...backendEnv },
        frontend: frontendEnv,
      },
    }),
    startBrowser(),
  ]);
  await connectKomodo(stackgate, komodo);
  const apiKey = await createApiKey(stackgate, API_KEY_NAME);

  const openPage = (options: Partial<OpenPageOptions> = {}) =>
    browser.openPage({ baseUrl: stackgate.baseUrl, ...options });

  return {
    komodo,
    stackgate,
    browser,
    apiKey,
    openPage,
    async openSignedIn(path, options = {}) {
      const page = await openPage({ signedInTo: stackgate, ...options });
      await page.goto(`${stackgate.baseUrl}${path}`);
      await hydrated(page);
      return page;
    },
    async close() {
      // The browser's pages are closed after each test: nothing of it talks to the services any more.
      await Promise.all([browser?.close(), stackgate?.stop()]);
      await komodo?.close();
    },
  };
}

/** Resolves once every image in use has a scan result (or failed), so markers are stable. */
export async function scansSettled(world: StackWorld, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const response = await fetch(`${world.stackgate.baseUrl}/api/v0/security/images`, {
      headers: { "x-api-key": world.apiKey },
    });
    const { images } = (await response.json()) as { images: { status: string }[] };
    if (images.length > 0 && images.every((image) => image.status === "done" || image.status === "failed"))
      return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("the image scans did not settle in time");
}

/**
 * The demo stacks (with `outline`, whose deploys fail, given an image update) and generated ones up to
 * `count`: a big install, as bulk actions and the palette are for.
 */
export function manyStacks(count: number): StackSeed[] {
  const demo = worldStacks().map((seed) =>
    seed.name === "outline"
      ? { ...seed, services: seed.services?.map((service) => ({ ...service, updateAvailable: true })) }
      : seed,
  );
  const taken = new Set(demo.map((seed) => seed.name));
  const generated = generateStacks(count * 2).filter((seed) => !taken.has(seed.name));
  return [...demo, ...generated.slice(0, count - demo.length)];
}

/**
 * The hooks every stack-world test file shares: the world starts before the file's tests (then
 * `prepare` sets its scene), after each test its pages must have reported no errors and the
 * simulator's faults are put back, and the world stops after them all. Returns the world's getter.
 */
export function stackWorldOfThisFile(
  options: StackWorldOptions = {},
  prepare: (world: StackWorld) => Promise<void> = async () => {},
): () => StackWorld {
  let world: StackWorld | undefined;
  const current = () => {
    if (!world) throw new Error("the stack world starts in beforeAll");
    return world;
  };
  beforeAll(async () => {
    world = await startStackWorld(options);
    await prepare(world);
  });
  afterEach(async () => {
    await current().komodo.faults.reset();
    expect(await current().browser.finishTest()).toEqual([]);
  });
  afterAll(async () => {
    await world?.close();
  });
  return current;
}
