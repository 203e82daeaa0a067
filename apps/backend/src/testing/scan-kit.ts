/**
 * Shared set-up of the scan tests: the real backend over HTTP, the Komodo simulator and the
 * stand-in trivy (through the real runner), with its run log in a fresh directory.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type KomodoSimulator,
  readStandInTrivyRuns,
  type ServerFaults,
  type StackSeed,
  standInTrivyPath,
  startKomodoSimulator,
} from "@stackgate/simulators";
import { expect } from "vitest";
import type { Clock } from "../platform/clock.ts";
import { startTestBackend, type TestBackend } from "./harness.ts";

export interface ScanBench {
  komodo: KomodoSimulator;
  app: TestBackend;
  cookie: string;
  /** Every stand-in trivy run so far, in start order. */
  runs(): ReturnType<typeof readStandInTrivyRuns>;
  /** The images each run scanned, in start order. */
  scannedImages(): Array<string | null>;
  clearRuns(): void;
  images(): Promise<ImageEntry[]>;
  image(ref: string): Promise<ImageEntry | undefined>;
  /** Lists the images until `ref` shows `status` (each listing queues what a listing queues). */
  waitFor(ref: string, status: string): Promise<ImageEntry>;
  /** Resolves once no scan waits or runs. */
  idle(): Promise<void>;
  /** Restarts the backend over the same database. */
  restart(options?: { env?: Record<string, string>; clock?: Clock }): Promise<void>;
  close(): Promise<void>;
}

export interface ImageEntry {
  image: string;
  stacks: string[];
  status: string;
  counts: Record<"critical" | "high" | "medium" | "low" | "unknown", number>;
  fixable: number;
  requestedAt: string | null;
  attemptedAt: string | null;
  scannedAt: string | null;
  errorKind?: string;
  error?: string;
}

/** The run log lives in process.env because the runner passes STANDIN_TRIVY_* on to every scan. */
export async function startScanBench({
  stacks,
  env = {},
  clock,
  komodoFaults,
}: {
  stacks: StackSeed[];
  env?: Record<string, string>;
  clock?: Clock;
  komodoFaults?: ServerFaults;
}): Promise<ScanBench> {
  const logDir = mkdtempSync(join(tmpdir(), "stackgate-scans-"));
  const runLog = join(logDir, "trivy-runs.jsonl");
  process.env.STANDIN_TRIVY_LOG = runLog;
  const backendEnv = { TRIVY_BIN: standInTrivyPath, ...env };

  const komodo = await startKomodoSimulator({ stacks, faults: komodoFaults });
  let app = await startTestBackend({ env: backendEnv, clock });
  const cookie = await app.signIn();
  await app.connectKomodo(cookie, komodo);

  const images = async (): Promise<ImageEntry[]> => {
    const response = await app.request("/api/v0/security/images", { headers: { cookie } });
    expect(response.status, response.text).toBe(200);
    return response.json.images;
  };

  const bench: ScanBench = {
    komodo,
    get app() {
      return app;
    },
    cookie,
    runs: () => readStandInTrivyRuns(runLog),
    scannedImages: () => readStandInTrivyRuns(runLog).map((run) => run.image),
    clearRuns: () => writeFileSync(runLog, ""),
    images,
    image: async (ref) => (await images()).find((entry) => entry.image === ref),
    async waitFor(ref, status) {
      let found: ImageEntry | undefined;
      const look = async () => {
        found = await bench.image(ref);
        return found?.status;
      };
      await expect.poll(look, { timeout: 15_000, interval: 50 }).toBe(status);
      return found!;
    },
    idle: () => app.backend.services.scans.idle(),
    async restart(options = {}) {
      const { dataDir } = app;
      await app.close({ keepData: true });
      app = await startTestBackend({ dataDir, env: { ...backendEnv, ...options.env }, clock: options.clock });
    },
    async close() {
      await app.close();
      await komodo.close();
      rmSync(logDir, { recursive: true, force: true });
    },
  };
  return bench;
}

export const zeroCounts = { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 };

/**
 * Keeps every "slow" image's scan running until `release()`, so a test sees them running however
 * busy the machine is (a fixed STANDIN_TRIVY_SLOW_MS can end first). Set before the scans start;
 * a scan whose process starts after `release()` is not held at all.
 */
export function holdSlowScans(): { release(): void } {
  const dir = mkdtempSync(join(tmpdir(), "stackgate-hold-"));
  const hold = join(dir, "hold");
  writeFileSync(hold, "");
  process.env.STANDIN_TRIVY_HOLD_FILE = hold;
  return { release: () => rmSync(dir, { recursive: true, force: true }) };
}
