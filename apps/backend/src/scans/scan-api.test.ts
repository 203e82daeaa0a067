import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestBackend } from "../testing/harness.ts";
import { type ImageEntry, type ScanBench, startScanBench, zeroCounts } from "../testing/scan-kit.ts";

const CRITICAL = "ghcr.io/acme/critical-api:1.4";
const CLEAN = "gcr.io/distroless/clean-static:nonroot";
const PRIVATE = "registry.example.com/team/private-app:3";
const JAVA = "eclipse-temurin/java-spring:21";
const SHARED = "redis:7.4-alpine";
/** A stack whose compose file names something we must never hand to a command line. */
const HOSTILE = "a;rm -rf /";

let bench: ScanBench;
let key: string;
beforeAll(async () => {
  bench = await startScanBench({
    stacks: [
      {
        name: "api",
        services: [
          { service: "api", image: CRITICAL },
          { service: "cache", image: SHARED },
        ],
      },
      { name: "static", services: [{ service: "web", image: CLEAN }] },
      { name: "secret", services: [{ service: "app", image: PRIVATE }] },
      { name: "java", services: [{ service: "app", image: JAVA }] },
      { name: "cache", services: [{ service: "redis", image: SHARED }] },
      { name: "hostile", services: [{ service: "app", image: HOSTILE }] },
    ],
  });
  key = (await bench.app.createApiKey(bench.cookie, "scan-pipeline")).key;
  await bench.images();
  await bench.idle();
});
afterAll(() => bench.close());
beforeEach(async () => {
  await bench.komodo.faults.reset();
  await bench.idle();
  bench.clearRuns();
});

const get = (path: string, headers: Record<string, string> = { cookie: bench.cookie }) =>
  bench.app.request(path, { headers });
const requestScan = (body?: unknown, headers: Record<string, string> = { cookie: bench.cookie }) =>
  bench.app.request("/api/v0/security/scan", {
    method: "POST",
    headers: { ...headers, ...(body === undefined ? { origin: "http://localhost:8080" } : {}) },
    ...(body === undefined ? {} : { json: body }),
  });
const detailOf = (image: string) => get(`/api/v0/security/image?image=${encodeURIComponent(image)}`);

describe("GET /api/v0/security/images", () => {
  it("lists every image a stack uses once, with its stacks, for a key as for a session", async () => {
    const response = await get("/api/v0/security/images", { "x-api-key": key });
    expect(response.status).toBe(200);
    const images: ImageEntry[] = response.json.images;
    expect(images.map((entry) => entry.image).sort()).toEqual(
      [CRITICAL, CLEAN, PRIVATE, JAVA, SHARED, HOSTILE].sort(),
    );
    expect(images.find((entry) => entry.image === SHARED)?.stacks).toEqual(["api", "cache"]);
    const critical = images.find((entry) => entry.image === CRITICAL)!;
    expect(Object.keys(critical).sort()).toEqual(
      ["attemptedAt", "counts", "fixable", "image", "requestedAt", "scannedAt", "stacks", "status"].sort(),
    );
    expect(critical.status).toBe("done");
    expect(critical.counts.critical).toBeGreaterThanOrEqual(1);
    expect(Date.parse(critical.scannedAt!)).toBeGreaterThanOrEqual(Date.parse(critical.attemptedAt!));
  });

  it("puts the worst first: by critical, high, medium, low, unknown, then failures, then by name", async () => {
    const images: ImageEntry[] = (await get("/api/v0/security/images")).json.images;
    const severities = ["critical", "high", "medium", "low", "unknown"] as const;
    const rank = (entry: ImageEntry) => (entry.status === "failed" ? 0 : entry.scannedAt === null ? 1 : 2);
    for (let n = 1; n < images.length; n++) {
      const [a, b] = [images[n - 1], images[n]];
      const difference = severities.map((s) => b.counts[s] - a.counts[s]).find((d) => d !== 0) ?? 0;
      const order = difference || rank(a) - rank(b) || a.image.localeCompare(b.image);
      expect(order, `${a.image} before ${b.image}`).toBeLessThanOrEqual(0);
    }
    expect(images[0].image).toBe(CRITICAL);
    // Failed without a result beat the verified clean image; the clean one comes last.
    expect(images.at(-1)?.image).toBe(CLEAN);
  });

  it("shows an image that could not be pulled as failed/unauthorized with zero counts", async () => {
    const entry = (await bench.images()).find((image) => image.image === PRIVATE);
    expect(entry).toMatchObject({
      status: "failed",
      errorKind: "unauthorized",
      counts: zeroCounts,
      fixable: 0,
    });
    expect(entry?.error).toMatch(/UNAUTHORIZED: authentication required/);
  });

  it("never starts a process for an image reference it refuses, even when a stack names it", async () => {
    const entry = (await bench.images()).find((image) => image.image === HOSTILE);
    expect(entry).toMatchObject({ status: "failed", errorKind: "other", stacks: ["hostile"] });
    expect(entry?.error).toMatch(/^invalid image reference: /);
    await requestScan({ images: [HOSTILE] });
    await bench.idle();
    expect(bench.scannedImages()).toEqual([]);
  });

  it("answers 503 without a Komodo connection and 502 when Komodo is down", async () => {
    await bench.komodo.faults.set({ down: true });
    const down = await get("/api/v0/security/images");
    expect(down.status).toBe(502);
    expect(down.json.message).toMatch(/unreachable/);

    const unconnected = await startTestBackend();
    try {
      const cookie = await unconnected.signIn();
      const response = await unconnected.request("/api/v0/security/images", { headers: { cookie } });
      expect(response.status).toBe(503);
      expect(response.json.message).toMatch(/No Komodo connection/);
    } finally {
      await unconnected.close();
    }
  });
});

describe("GET /api/v0/security/image", () => {
  it("returns the record with its vulnerabilities, worst first", async () => {
    const response = await detailOf(JAVA);
    expect(response.status).toBe(200);
    const detail = response.json;
    const listed = (await bench.images()).find((entry) => entry.image === JAVA);
    const { vulnerabilities, ...record } = detail;
    expect(record).toEqual(listed);
    expect(vulnerabilities.length).toBeGreaterThan(0);
    for (const vulnerability of vulnerabilities) {
      expect(Object.keys(vulnerability).sort()).toEqual(
        ["fixedVersion", "id", "installedVersion", "package", "severity", "title", "url"].sort(),
      );
    }
    const tally = { ...zeroCounts } as Record<string, number>;
    for (const { severity } of vulnerabilities) tally[severity] += 1;
    expect(tally).toEqual(detail.counts);
    expect(
      vulnerabilities.filter((v: { fixedVersion: string | null }) => v.fixedVersion !== null),
    ).toHaveLength(detail.fixable);
    expect(vulnerabilities[0].severity).toBe(detail.counts.critical > 0 ? "critical" : "high");
  });

  it("404 for an image no stack uses and nothing stored, 400 without or with a bad ?image=", async () => {
    const unknown = await detailOf("ghcr.io/acme/nobody-uses-this:1");
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toMatch(/No stack uses ghcr.io\/acme\/nobody-uses-this:1/);

    const missing = await get("/api/v0/security/image");
    expect(missing.status).toBe(400);
    expect(missing.json.message).toMatch(/^image: /);

    const hostile = await detailOf("$(id)");
    expect(hostile.status).toBe(400);
    expect(hostile.json.message).toMatch(/^image: invalid image reference: /);
  });
});

describe("POST /api/v0/security/scan", () => {
  it("queues every image for no body and for an empty object", async () => {
    // Scans long enough that none has ended when the second request comes (one ended first on CI).
    process.env.STANDIN_TRIVY_SCAN_MS = "1000";
    try {
      const everything = await requestScan(undefined, { "x-api-key": key });
      expect(everything.status, everything.text).toBe(200);
      expect(everything.json.queued.sort()).toEqual([CRITICAL, CLEAN, PRIVATE, JAVA, SHARED, HOSTILE].sort());
      const again = await requestScan({});
      expect(again.json.queued).toEqual([]);
      expect(again.json.alreadyQueued.length).toBeGreaterThan(0);
      await bench.idle();
    } finally {
      delete process.env.STANDIN_TRIVY_SCAN_MS;
    }
    // Every image but the refused reference went to Trivy, each once.
    expect(bench.scannedImages().sort()).toEqual([CRITICAL, CLEAN, PRIVATE, JAVA, SHARED].sort());
  });

  it("queues the images named", async () => {
    const response = await requestScan({ images: [CLEAN, SHARED, CLEAN] });
    expect(response.json).toEqual({ queued: [CLEAN, SHARED], alreadyQueued: [] });
    await bench.idle();
    expect(bench.scannedImages().sort()).toEqual([CLEAN, SHARED].sort());
  });

  it("refuses the whole request with 400 naming each image no stack uses, and queues nothing", async () => {
    const before = await bench.image(CLEAN);
    const response = await requestScan({ images: [CLEAN, "nginx:1.27", "ghcr.io/acme/gone:2"] });
    expect(response.status).toBe(400);
    expect(response.json.message).toBe("No stack uses nginx:1.27, ghcr.io/acme/gone:2; nothing was queued");
    expect(response.json.images).toEqual(["nginx:1.27", "ghcr.io/acme/gone:2"]);
    await bench.idle();
    expect(bench.scannedImages()).toEqual([]);
    expect((await bench.image(CLEAN))?.requestedAt).toBe(before?.requestedAt);
  });

  it.each([[["--help"]], [["a;rm -rf /"]], [["$(id)"]], [["nginx\nid"]], [["`id`"]], [[CLEAN, "-v"]]])(
    "rejects %j with 400 before any process starts",
    async (images) => {
      const response = await requestScan({ images });
      expect(response.status).toBe(400);
      expect(response.json.message).toMatch(/^images\.\d: invalid image reference: /);
      await bench.idle();
      expect(bench.scannedImages()).toEqual([]);
    },
  );

  it.each([
    [{ images: [] }, /images: images must not be empty/],
    [{ images: "nginx" }, /images/],
    [{ image: [CLEAN] }, /image/],
  ])("rejects the malformed body %j with 400", async (body, message) => {
    const response = await requestScan(body);
    expect(response.status).toBe(400);
    expect(response.json.message).toMatch(message);
  });
});
