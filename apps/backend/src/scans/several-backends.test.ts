import { maxOverlappingRuns, standInTrivyPath } from "@stackgate/simulators";
import { afterAll, describe, expect, it, vi } from "vitest";
import { databaseEnvironmentOf, onPostgres } from "../testing/database.ts";
import { startTestBackend, type TestBackend } from "../testing/harness.ts";
import { type ImageEntry, type ScanBench, startScanBench } from "../testing/scan-kit.ts";

// Two backends on one PostgreSQL database: the scan queue is one queue for both.
describe.skipIf(!onPostgres())("image scans with several backends", () => {
  let bench: ScanBench | undefined;
  let other: TestBackend | undefined;
  afterAll(async () => {
    await other?.close();
    await bench?.close();
    delete process.env.STANDIN_TRIVY_SLOW_MS;
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
});
