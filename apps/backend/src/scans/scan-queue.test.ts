import { maxOverlappingRuns } from "@stackgate/simulators";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { imageScan } from "../db/schema.ts";
import { manualClock } from "../testing/clock.ts";
import { openDatabaseOfDataDir } from "../testing/database.ts";
import { holdSlowScans, type ScanBench, startScanBench, zeroCounts } from "../testing/scan-kit.ts";

let bench: ScanBench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
  delete process.env.STANDIN_TRIVY_SLOW_MS;
  delete process.env.STANDIN_TRIVY_HOLD_FILE;
});

const oneService = (name: string, image: string) => ({ name, services: [{ service: "app", image }] });

/** The image_scan rows straight from the database, as a restarted backend would read them. */
async function storedRows(dataDir: string) {
  const database = await openDatabaseOfDataDir(dataDir);
  try {
    return await database.db
      .select({ image: imageScan.image, status: imageScan.status })
      .from(imageScan)
      .orderBy(imageScan.image);
  } finally {
    await database.close();
  }
}

describe("the scan queue", () => {
  it("runs exactly two scans at a time", async () => {
    const slowScans = holdSlowScans();
    const images = ["a", "b", "c", "d", "e"].map((letter) => `ghcr.io/acme/slow-${letter}:1`);
    bench = await startScanBench({ stacks: images.map((image, n) => oneService(`app-${n}`, image)) });

    const listed = await bench.images();
    expect(listed.filter((entry) => entry.status === "scanning")).toHaveLength(2);
    expect(listed.filter((entry) => entry.status === "queued")).toHaveLength(3);
    // Released once both processes run, so they are seen overlapping.
    await expect.poll(() => bench!.runs().length).toBe(2);
    slowScans.release();
    await bench.idle();

    expect(bench.runs()).toHaveLength(5);
    expect(maxOverlappingRuns(bench.runs())).toBe(2);
    expect((await bench.images()).every((entry) => entry.status === "done")).toBe(true);
  });

  it("starts waiting scans first in, first out, each when a slot frees", async () => {
    process.env.STANDIN_TRIVY_SLOW_MS = "3000";
    const slow = "ghcr.io/acme/slow-first:1";
    const quick = ["b", "c", "d", "e"].map((letter) => `ghcr.io/acme/${letter}:1`);
    bench = await startScanBench({
      stacks: [slow, ...quick].map((image, n) => oneService(`app-${n}`, image)),
    });

    await bench.images();
    await bench.idle();

    // The slow scan holds one slot throughout; the quick ones pass through the other in order.
    const runs = bench.runs();
    const quickRuns = runs.filter((run) => run.image !== slow);
    expect(quickRuns.map((run) => run.image)).toEqual(quick);
    for (let n = 1; n < quickRuns.length; n++) {
      expect(quickRuns[n].start).toBeGreaterThanOrEqual(quickRuns[n - 1].end!);
    }
    expect(maxOverlappingRuns(runs)).toBe(2);
  });

  it("never holds the same image twice, waiting or running", async () => {
    // All three images are slow and held until the hold file goes, so each still waits or runs when
    // the request arrives. Komodo lists stack "four" first: a quick third image was often done by then.
    const slowScans = holdSlowScans();
    const shared = "ghcr.io/acme/slow-shared:1";
    bench = await startScanBench({
      stacks: [
        {
          name: "one",
          services: [
            { service: "app", image: shared },
            { service: "side", image: shared },
          ],
        },
        oneService("two", shared),
        oneService("three", "ghcr.io/acme/slow-other:1"),
        oneService("four", "ghcr.io/acme/slow-third:1"),
      ],
    });

    const [first, second] = await Promise.all([bench.images(), bench.images()]);
    expect(first.find((entry) => entry.image === shared)?.stacks).toEqual(["one", "two"]);
    expect(second).toHaveLength(3);
    const request = await bench.app.request("/api/v0/security/scan", {
      method: "POST",
      headers: { cookie: bench.cookie },
      json: { images: [shared, shared, "ghcr.io/acme/slow-third:1"] },
    });
    expect(request.status).toBe(200);
    expect(request.json).toEqual({ queued: [], alreadyQueued: [shared, "ghcr.io/acme/slow-third:1"] });
    slowScans.release();
    await bench.idle();

    expect(bench.scannedImages().sort()).toEqual([
      "ghcr.io/acme/slow-other:1",
      shared,
      "ghcr.io/acme/slow-third:1",
    ]);
  });

  it("stores every transition with its time: queued, scanning, done or failed", async () => {
    const slowScans = holdSlowScans();
    const clock = manualClock(Date.parse("2026-11-22T12:00:00Z"));
    const [slowA, slowB, third] = [
      "ghcr.io/acme/slow-a:1",
      "ghcr.io/acme/slow-private-b:1",
      "ghcr.io/acme/critical-c:1",
    ];
    bench = await startScanBench({
      clock,
      stacks: [oneService("a", slowA), oneService("b", slowB), oneService("c", third)],
    });
    const t0 = new Date(clock.now()).toISOString();

    await bench.images();
    expect(await bench.image(slowA)).toMatchObject({
      status: "scanning",
      requestedAt: t0,
      attemptedAt: t0,
      scannedAt: null,
    });
    expect(await bench.image(third)).toMatchObject({
      status: "queued",
      requestedAt: t0,
      attemptedAt: null,
      scannedAt: null,
    });

    clock.advance(60_000);
    const t1 = new Date(clock.now()).toISOString();
    slowScans.release();
    const done = await bench.waitFor(slowA, "done");
    expect(done).toMatchObject({ requestedAt: t0, attemptedAt: t0, scannedAt: t1 });
    expect(done).not.toHaveProperty("errorKind");
    expect(await bench.waitFor(slowB, "failed")).toMatchObject({
      attemptedAt: t0,
      scannedAt: null,
      errorKind: "unauthorized",
    });
    expect(await bench.waitFor(third, "done")).toMatchObject({
      requestedAt: t0,
      attemptedAt: t1,
      scannedAt: t1,
    });
  });

  it("keeps the previous result when a rescan fails, and clears the failure on the next success", async () => {
    const clock = manualClock(Date.parse("2026-11-22T12:00:00Z"));
    // A "slow" image scans at once with no delay, and fails with Trivy's time-out past the 4 s limit.
    // The limit leaves room for the stand-in's own start on a loaded machine (1 s did not).
    process.env.STANDIN_TRIVY_SLOW_MS = "0";
    const image = "ghcr.io/acme/critical-slow-api:2.0";
    bench = await startScanBench({
      clock,
      stacks: [oneService("api", image)],
      env: { SCANNER_SCAN_TIMEOUT_SECONDS: "4" },
    });
    const first = await bench.waitFor(image, "done");
    const detailPath = `/api/v0/security/image?image=${encodeURIComponent(image)}`;
    const firstDetail = (await bench.app.request(detailPath, { headers: { cookie: bench.cookie } })).json;
    expect(first.counts.critical).toBeGreaterThanOrEqual(1);

    process.env.STANDIN_TRIVY_SLOW_MS = "5000";
    clock.advance(3_600_000);
    const rescan = { method: "POST", headers: { cookie: bench.cookie }, json: { images: [image] } };
    expect((await bench.app.request("/api/v0/security/scan", rescan)).json.queued).toEqual([image]);
    await bench.idle();

    const failed = await bench.image(image);
    expect(failed).toMatchObject({
      status: "failed",
      errorKind: "timeout",
      counts: first.counts,
      fixable: first.fixable,
      scannedAt: first.scannedAt,
      attemptedAt: new Date(clock.now()).toISOString(),
    });
    // Trivy's own deadline or ours, whichever comes first: one message.
    expect(failed?.error).toBe("Trivy did not finish within 4 s");
    const failedDetail = (await bench.app.request(detailPath, { headers: { cookie: bench.cookie } })).json;
    expect(failedDetail.vulnerabilities).toEqual(firstDetail.vulnerabilities);

    process.env.STANDIN_TRIVY_SLOW_MS = "0";
    clock.advance(3_600_000);
    await bench.app.request("/api/v0/security/scan", rescan);
    await bench.idle();
    const again = await bench.image(image);
    expect(again).toMatchObject({
      status: "done",
      counts: first.counts,
      scannedAt: new Date(clock.now()).toISOString(),
    });
    expect(again).not.toHaveProperty("error");
  });

  it.each([
    ["ghcr.io/acme/private-app:1", "unauthorized", /UNAUTHORIZED/],
    ["ghcr.io/acme/missing-app:1", "not-found", /MANIFEST_UNKNOWN/],
    ["ghcr.io/acme/crash-app:1", "other", /panic/],
  ])("a first scan of %s ends failed/%s with zero counts", async (image, errorKind, message) => {
    bench = await startScanBench({ stacks: [oneService("app", image)] });
    const failed = await bench.waitFor(image, "failed");
    expect(failed).toMatchObject({ errorKind, counts: zeroCounts, fixable: 0, scannedAt: null });
    expect(failed.error).toMatch(message);
  });
});

describe("restarts", () => {
  it("marks scans cut off by a stop as interrupted, and the next listing queues them again", async () => {
    process.env.STANDIN_TRIVY_SLOW_MS = "30000";
    const images = ["ghcr.io/acme/slow-a:1", "ghcr.io/acme/slow-b:1", "ghcr.io/acme/slow-c:1"];
    bench = await startScanBench({ stacks: images.map((image, n) => oneService(`s${n}`, image)) });
    await bench.images();
    await expect.poll(() => bench!.runs().length).toBe(2);

    const { dataDir } = bench.app;
    const started = performance.now();
    await bench.app.close({ keepData: true });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(bench.runs().map((run) => run.outcome)).toEqual(["terminated", "terminated"]);
    expect(await storedRows(dataDir)).toEqual(images.map((image) => ({ image, status: "interrupted" })));

    const slowScans = holdSlowScans();
    await bench.restart();
    const listed = await bench.images();
    expect(listed.map((entry) => entry.status).sort()).toEqual(["queued", "scanning", "scanning"]);
    slowScans.release();
    await bench.idle();
    expect((await bench.images()).map((entry) => entry.status)).toEqual(["done", "done", "done"]);
  });

  it("after a crash, scans left queued or scanning are interrupted, then queued again", async () => {
    const image = "ghcr.io/acme/web:3";
    bench = await startScanBench({ stacks: [oneService("web", image)] });
    await bench.waitFor(image, "done");
    const { dataDir } = bench.app;
    await bench.app.close({ keepData: true });
    // What a killed process leaves behind: a row still marked scanning.
    const database = await openDatabaseOfDataDir(dataDir);
    await database.db.transaction((tx) =>
      tx.update(imageScan).set({ status: "scanning" }).where(eq(imageScan.image, image)),
    );
    await database.close();
    bench.clearRuns();

    await bench.restart();
    expect(await storedRows(dataDir)).toEqual([{ image, status: "interrupted" }]);
    expect(bench.app.logLines.some((line) => line.includes('"interrupted":1'))).toBe(true);
    await bench.images();
    await bench.idle();
    expect(bench.scannedImages()).toEqual([image]);
    expect((await bench.image(image))?.status).toBe("done");
  });
});
