import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { standInTrivyPath } from "@stackgate/simulators";
import { afterEach, describe, expect, it } from "vitest";
import { type ScanBench, startScanBench } from "../testing/scan-kit.ts";

let bench: ScanBench | undefined;
let binDir: string | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
  if (binDir) rmSync(binDir, { recursive: true, force: true });
  binDir = undefined;
  delete process.env.STANDIN_TRIVY_UNAVAILABLE;
});

const IMAGES = ["ghcr.io/acme/web:1", "ghcr.io/acme/api:2", "ghcr.io/acme/worker:3"];
const stacks = IMAGES.map((image, n) => ({ name: `app-${n}`, services: [{ service: "app", image }] }));

const PAUSED = "image scans are paused: the scanner is not available";
const linesWith = (bench: ScanBench, text: string) =>
  bench.app.logLines.filter((line) => line.includes(text));

async function listing(bench: ScanBench) {
  const response = await bench.app.request("/api/v0/security/images", { headers: { cookie: bench.cookie } });
  expect(response.status, response.text).toBe(200);
  return response.json as { images: Array<{ image: string; status: string }>; scanner?: unknown };
}

describe("a scanner that cannot be used", () => {
  it("without Trivy: every image stays queued, the listing says why and how to fix it, the log says it once", async () => {
    binDir = mkdtempSync(join(tmpdir(), "stackgate-trivy-bin-"));
    const trivyBin = join(binDir, "trivy");
    bench = await startScanBench({ stacks, env: { TRIVY_BIN: trivyBin } });

    await listing(bench);
    await bench.idle();
    await listing(bench);
    await bench.idle();
    const { images, scanner } = await listing(bench);

    expect(images.map((entry) => entry.status)).toEqual(["queued", "queued", "queued"]);
    expect(scanner).toEqual({
      available: false,
      reason: `Trivy not found (TRIVY_BIN=${trivyBin}): install Trivy and run \`trivy server --listen 127.0.0.1:4954\`, or set TRIVY_BIN to its path`,
      since: expect.any(String),
    });
    expect(linesWith(bench, PAUSED)).toHaveLength(1);
    expect(linesWith(bench, "image scan failed")).toEqual([]);
    const stored = await bench.image(IMAGES[0]);
    expect(stored).toMatchObject({ attemptedAt: null, scannedAt: null });
    expect(stored).not.toHaveProperty("errorKind");

    // Trivy gets installed; a scan request tries it at once and the queue resumes.
    symlinkSync(standInTrivyPath, trivyBin);
    const request = { method: "POST", headers: { cookie: bench.cookie }, json: {} };
    expect((await bench.app.request("/api/v0/security/scan", request)).status).toBe(200);
    await bench.idle();
    const after = await listing(bench);
    expect(after.scanner).toEqual({ available: true });
    expect(after.images.map((entry) => entry.status)).toEqual(["done", "done", "done"]);
    expect(linesWith(bench, "the scanner is available again")).toHaveLength(1);
    expect(bench.scannedImages().sort()).toEqual([...IMAGES].sort());
  });

  it("with the Trivy server unreachable: images wait, a registry refusal still fails its own image", async () => {
    process.env.STANDIN_TRIVY_UNAVAILABLE = "1";
    const privateImage = "registry.example.com/private/billing:2";
    bench = await startScanBench({
      stacks: [...stacks, { name: "billing", services: [{ service: "api", image: privateImage }] }],
      env: { TRIVY_SERVER_URL: "http://127.0.0.1:4954" },
    });

    await listing(bench);
    await bench.idle();
    const { images, scanner } = await listing(bench);

    const statusOf = new Map(images.map((entry) => [entry.image, entry.status]));
    expect(IMAGES.map((image) => statusOf.get(image))).toEqual(["queued", "queued", "queued"]);
    expect(scanner).toMatchObject({
      available: false,
      reason:
        "The Trivy server at http://127.0.0.1:4954 cannot be used (connect: connection refused): " +
        "run `trivy server --listen 127.0.0.1:4954`, or set TRIVY_SERVER_URL",
    });
    expect(linesWith(bench, PAUSED)).toHaveLength(1);

    // The private image, scanned or probed at any point, fails on its own registry refusal.
    delete process.env.STANDIN_TRIVY_UNAVAILABLE;
    await bench.app.request("/api/v0/security/scan", {
      method: "POST",
      headers: { cookie: bench.cookie },
      json: {},
    });
    await bench.idle();
    const after = await listing(bench);
    expect(after.scanner).toEqual({ available: true });
    const statusAfter = new Map(after.images.map((entry) => [entry.image, entry.status]));
    expect(statusAfter.get(privateImage)).toBe("failed");
    expect(IMAGES.map((image) => statusAfter.get(image))).toEqual(["done", "done", "done"]);
    expect(linesWith(bench, PAUSED)).toHaveLength(1);
  });
});
