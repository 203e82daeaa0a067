import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { manualClock } from "../testing/clock.ts";
import { type ScanBench, startScanBench } from "../testing/scan-kit.ts";

const WEB = "ghcr.io/acme/web:1.4";
const REDIS = "redis:7.4-alpine";
const API = "ghcr.io/acme/api:2.0";
const BROKEN = "ghcr.io/acme/broken:2";

/** Thirty more stacks, so that a request per stack would show in the call counts. */
const fillers = Array.from({ length: 30 }, (_, n) => ({
  name: `filler-${n}`,
  services: [{ service: "app", image: `ghcr.io/acme/filler-${n}:1` }],
}));

const stacks = [
  {
    name: "web",
    services: [
      { service: "app", image: WEB },
      { service: "cache", image: REDIS },
    ],
  },
  { name: "api", services: [{ service: "app", image: API }] },
  { name: "cache", services: [{ service: "redis", image: REDIS }] },
  {
    name: "broken",
    services: [{ service: "app", image: BROKEN }],
    faults: { failWith: "Error response from daemon: manifest for acme/broken:2 not found" },
  },
  ...fillers,
];

const callsOf = (bench: ScanBench, type: string) => bench.komodo.calls.filter((call) => call.type === type);
const sweepLines = (lines: string[]) => lines.filter((line) => line.includes("background sweep"));

describe("triggers", () => {
  let bench: ScanBench;
  beforeAll(async () => {
    // These tests count the sweep's calls to Komodo; without the update stream, no name look-up of
    // an outside deploy (upstream/update-stream.test.ts) is counted among them.
    bench = await startScanBench({ stacks, komodoFaults: { refuseUpdateStream: true } });
    await bench.images();
    await bench.idle();
  });
  afterAll(() => bench.close());
  beforeEach(async () => {
    await bench.komodo.faults.reset();
    await bench.idle();
    bench.clearRuns();
    bench.komodo.clearCalls();
  });

  it("a successful deploy queues the stack's images; a failed one queues nothing", async () => {
    const deploy = (stack: string) =>
      bench.app.request("/api/v0/deploy", {
        method: "POST",
        headers: { cookie: bench.cookie },
        json: { stack, action: "pull" },
      });
    const before = await bench.image(WEB);

    expect((await deploy("broken")).status).toBe(502);
    expect((await deploy("web")).status).toBe(200);
    await expect.poll(() => bench.scannedImages().length).toBe(2);
    await bench.idle();

    expect(bench.scannedImages().sort()).toEqual([WEB, REDIS].sort());
    const after = await bench.image(WEB);
    expect(Date.parse(after!.requestedAt!)).toBeGreaterThan(Date.parse(before!.requestedAt!));
    expect(after?.status).toBe("done");
  });

  it("the sweep rescans a stack Komodo deployed outside Stackgate, asking once for all stacks", async () => {
    const oldestRequest = Math.min(...(await bench.images()).map((entry) => Date.parse(entry.requestedAt!)));
    bench.komodo.clearCalls();
    bench.komodo.recordExternalDeploy("api");

    await bench.app.backend.services.scans.sweepNow();
    await bench.idle();

    expect(bench.scannedImages()).toEqual([API]);
    // One stack listing and one page of deploys: nothing per stack.
    expect(bench.komodo.calls.map((call) => call.type)).toEqual(["ListStacks", "ListUpdates"]);
    expect(callsOf(bench, "ListUpdates")[0].params).toEqual({
      query: {
        "target.type": "Stack",
        operation: { $in: ["DeployStack", "DeployStackService"] },
        status: "Complete",
        success: true,
        start_ts: { $gte: oldestRequest },
      },
      page: 0,
    });

    bench.clearRuns();
    await bench.app.backend.services.scans.sweepNow();
    await bench.idle();
    expect(bench.scannedImages()).toEqual([]);
  });

  it("a deploy the upstream records before the image's last request does not queue it again", async () => {
    bench.komodo.recordExternalDeploy("cache", { at: Date.now() - 60 * 60_000 });
    await bench.app.backend.services.scans.sweepNow();
    await bench.idle();
    expect(bench.scannedImages()).toEqual([]);
  });

  it("a change of a stack's images upstream shows on the next listing", async () => {
    bench.komodo.setService("api", "app", { image: "ghcr.io/acme/api:2.1" });
    try {
      const listed = await bench.images();
      expect(listed.map((entry) => entry.image)).not.toContain(API);
      expect(listed.find((entry) => entry.image === "ghcr.io/acme/api:2.1")).toMatchObject({
        stacks: ["api"],
        status: expect.stringMatching(/^(queued|scanning)$/),
      });
      await bench.idle();
      expect(bench.scannedImages()).toEqual(["ghcr.io/acme/api:2.1"]);

      // The old image's result stays readable, now used by no stack.
      const old = await bench.app.request(`/api/v0/security/image?image=${encodeURIComponent(API)}`, {
        headers: { cookie: bench.cookie },
      });
      expect(old.status).toBe(200);
      expect(old.json).toMatchObject({ image: API, stacks: [], status: "done" });
    } finally {
      bench.komodo.setService("api", "app", { image: API });
    }
  });

  it("an unreachable upstream skips a sweep round with one log line", async () => {
    await bench.komodo.faults.set({ down: true });
    const before = bench.app.logLines.length;

    await bench.app.backend.services.scans.sweepNow();

    const lines = sweepLines(bench.app.logLines.slice(before)).map((line) => JSON.parse(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40 });
    expect(lines[0].msg).toMatch(/^background sweep skipped: Komodo at .* is unreachable/);
    expect(bench.scannedImages()).toEqual([]);
  });

  it("a sweep asked for during a round joins it instead of running twice", async () => {
    // What one round asks of Komodo, once Komodo answers again after the previous test's outage.
    await vi.waitFor(
      async () => {
        bench.komodo.clearCalls();
        await bench.app.backend.services.scans.sweepNow();
        expect(bench.komodo.calls.length).toBeGreaterThan(0);
      },
      { timeout: 10_000, interval: 100 },
    );
    const oneRound = bench.komodo.calls.length;
    bench.komodo.clearCalls();
    await bench.komodo.faults.set({ latencyMs: 100 });

    const scans = bench.app.backend.services.scans;
    const rounds = [scans.sweepNow(), scans.sweepNow()];
    // The round is under way once its first call has reached Komodo (which answers 100 ms later).
    await vi.waitFor(() => expect(bench.komodo.calls.length).toBeGreaterThan(0), {
      interval: 2,
      timeout: 10_000,
    });
    rounds.push(scans.sweepNow());
    await Promise.all(rounds);

    expect(bench.komodo.calls).toHaveLength(oneRound);
  });
});

describe("the rescan interval", () => {
  let bench: ScanBench;
  const clock = manualClock(Date.parse("2026-11-22T12:00:00Z"));
  beforeAll(async () => {
    bench = await startScanBench({ clock, stacks: stacks.slice(0, 3) });
  });
  afterAll(() => bench.close());

  it("rescans images whose last attempt is older than SCANNER_RESCAN_INTERVAL_HOURS (24)", async () => {
    await bench.images();
    await bench.idle();
    expect(bench.scannedImages().sort()).toEqual([API, REDIS, WEB].sort());
    const sweep = bench.app.backend.services.scans.sweepNow;

    bench.clearRuns();
    clock.advance(24 * 3_600_000);
    await sweep();
    await bench.idle();
    expect(bench.scannedImages()).toEqual([]);

    clock.advance(1);
    await sweep();
    await bench.idle();
    expect(bench.scannedImages().sort()).toEqual([API, REDIS, WEB].sort());
    expect((await bench.image(WEB))?.attemptedAt).toBe(new Date(clock.now()).toISOString());
  });
});

describe("the sweep timer", () => {
  let bench: ScanBench;
  afterEach(() => bench.close());

  it("sweeps after SCANNER_SWEEP_DELAY_SECONDS, then every SCANNER_SWEEP_INTERVAL_SECONDS, without any request", async () => {
    // Measured from before the start: the timer starts inside it, and a loaded machine can take
    // most of a second to hand the app back.
    const started = performance.now();
    bench = await startScanBench({
      stacks: stacks.slice(0, 3),
      env: { SCANNER_SWEEP_DELAY_SECONDS: "2", SCANNER_SWEEP_INTERVAL_SECONDS: "1" },
    });

    await expect.poll(() => bench.scannedImages().length, { timeout: 6000 }).toBe(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1990);
    await bench.idle();

    bench.clearRuns();
    bench.komodo.recordExternalDeploy("api");
    await expect.poll(() => bench.scannedImages(), { timeout: 5000 }).toEqual([API]);
    expect(sweepLines(bench.app.logLines).length).toBeGreaterThanOrEqual(2);
  });
});
