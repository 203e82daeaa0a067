import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { maxOverlappingRuns, standInTrivyPath } from "@stackgate/simulators";
import { afterEach, describe, expect, it, vi } from "vitest";
import { imageScan } from "../db/schema.ts";
import { type BackendProcess, postJson, startBackendProcess } from "../deploy/backend-process.ts";
import { databaseEnvironmentOf, onPostgres, openDatabaseOfDataDir } from "../testing/database.ts";
import { startTestBackend, TEST_AUTH_SECRET, type TestBackend } from "../testing/harness.ts";
import { holdSlowScans, type ImageEntry, type ScanBench, startScanBench } from "../testing/scan-kit.ts";

// Two backends on one PostgreSQL database: the scan queue is one queue for both.
describe.skipIf(!onPostgres())("image scans with several backends", () => {
  let bench: ScanBench | undefined;
  let other: TestBackend | undefined;
  let leader: BackendProcess | undefined;
  let leaderDir: string | undefined;
  let slowScans: { release(): void } | undefined;
  afterEach(async () => {
    slowScans?.release();
    leader?.child.kill("SIGKILL");
    if (leaderDir) rmSync(leaderDir, { recursive: true, force: true });
    await other?.close();
    await bench?.close();
    delete process.env.STANDIN_TRIVY_SLOW_MS;
    delete process.env.STANDIN_TRIVY_HOLD_FILE;
  });

  it("run two at a time over all backends, each image once, whichever backend was asked", async () => {
    process.env.STANDIN_TRIVY_SLOW_MS = "300";
    const images = ["a", "b", "c", "d", "e"].map((letter) => `ghcr.io/acme/slow-shared-${letter}:1`);
    bench = await startScanBench({
      stacks: images.map((image, n) => ({ name: `app-${n}`, services: [{ service: "app", image }] })),
    });
    const { DATABASE_URL } = databaseEnvironmentOf(bench.app.dataDir);
    other = await startTestBackend({ env: { TRIVY_BIN: standInTrivyPath, DATABASE_URL: DATABASE_URL! } });
    const cookie = await other.signIn();
    const listOn = async (app: TestBackend) =>
      (await app.request("/api/v0/security/images", { headers: { cookie } })).json.images as ImageEntry[];

    const scanAllOn = (app: TestBackend) =>
      app.request("/api/v0/security/scan", { method: "POST", headers: { cookie }, json: {} });
    // Both backends are asked at once, twice; the first one to start (it leads) runs every scan.
    const asked = await Promise.all([
      scanAllOn(other),
      scanAllOn(bench.app),
      scanAllOn(other),
      listOn(bench.app),
    ]);
    expect(asked.slice(0, 3).map((answer) => (answer as { status: number }).status)).toEqual([200, 200, 200]);
    await vi.waitFor(
      async () =>
        expect((await listOn(other!)).map((entry) => entry.status)).toEqual(images.map(() => "done")),
      { timeout: 20_000, interval: 250 },
    );
    expect(bench.scannedImages().sort()).toEqual(images);
    expect(maxOverlappingRuns(bench.runs())).toBe(2);
  });

  it("a backend takes over the scans of the one that led when it dies (kill -9), without waiting for a listing", async () => {
    // The leader's two scans run until it is dead, however busy the machine: the third cannot start.
    slowScans = holdSlowScans();
    const images = ["a", "b", "c"].map((letter) => `ghcr.io/acme/slow-taken-over-${letter}:1`);
    bench = await startScanBench({
      stacks: images.map((image, n) => ({ name: `app-${n}`, services: [{ service: "app", image }] })),
    });
    // The harness's backend only set the database up; the leader is a process, to be killed.
    await bench.app.close({ keepData: true });
    const { DATABASE_URL } = databaseEnvironmentOf(bench.app.dataDir);
    const shared = {
      TRIVY_BIN: standInTrivyPath,
      DATABASE_URL: DATABASE_URL!,
      BETTER_AUTH_SECRET: TEST_AUTH_SECRET,
    };
    leaderDir = mkdtempSync(join(tmpdir(), "stackgate-scan-leader-"));
    leader = await startBackendProcess({
      dataDir: leaderDir,
      adminPassword: "scan-leader-password-1",
      env: shared,
    });
    other = await startTestBackend({ env: shared });

    const asked = await postJson(`${leader.url}/api/v0/security/scan`, {}, { cookie: bench.cookie });
    expect(asked.status).toBe(200);
    await vi.waitFor(() => expect(bench!.runs()).toHaveLength(2), { timeout: 10_000, interval: 100 });
    leader.child.kill("SIGKILL");
    await leader.exited;
    process.env.STANDIN_TRIVY_SLOW_MS = "0";
    slowScans.release();

    // No listing from here on: the survivor takes the lead (within seconds) and scans all three.
    const database = await openDatabaseOfDataDir(bench.app.dataDir);
    try {
      const statuses = async () =>
        (await database.db.select({ image: imageScan.image, status: imageScan.status }).from(imageScan))
          .sort((a, b) => a.image.localeCompare(b.image))
          .map((row) => `${row.image} ${row.status}`);
      await vi.waitFor(async () => expect(await statuses()).toEqual(images.map((image) => `${image} done`)), {
        timeout: 20_000,
        interval: 250,
      });
    } finally {
      await database.close();
    }
    expect(other.logLines.some((line) => line.includes("taking over the image scans"))).toBe(true);
  }, 60_000);
});
