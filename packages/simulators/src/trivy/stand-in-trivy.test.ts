import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { maxOverlappingRuns, readStandInTrivyRuns, type StandInTrivyRun, standInTrivyPath } from "./index.ts";

const SYSTEM_NODE_20 = "/usr/bin/node";
const CLIENT_ARGS = ["image", "--server", "http://127.0.0.1:4954", "--format", "json", "--quiet"];

let dir: string;
let runLog: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "stand-in-trivy-"));
  runLog = join(dir, "runs.jsonl");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function runStandIn(args: string[], env: Record<string, string> = {}, command = standInTrivyPath) {
  const argv = command === standInTrivyPath ? args : [standInTrivyPath, ...args];
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      command,
      argv,
      { env: { PATH: process.env.PATH, STANDIN_TRIVY_LOG: runLog, ...env } },
      (error, stdout, stderr) => {
        resolve({ code: typeof error?.code === "number" ? error.code : error ? -1 : 0, stdout, stderr });
      },
    );
  });
}

async function report(image: string) {
  const { code, stdout } = await runStandIn([...CLIENT_ARGS, image]);
  expect(code).toBe(0);
  return JSON.parse(stdout);
}

describe("stand-in trivy", () => {
  it("prints a Trivy JSON report that depends only on the image name", async () => {
    const first = await report("ghcr.io/acme/shop-web:2.1");
    const second = await report("ghcr.io/acme/shop-web:2.1");
    const other = await report("ghcr.io/acme/shop-worker:2.1");

    expect({ ...first, CreatedAt: null }).toEqual({ ...second, CreatedAt: null });
    expect(other.Results).not.toEqual(first.Results);
    expect(first).toMatchObject({
      SchemaVersion: 2,
      ArtifactName: "ghcr.io/acme/shop-web:2.1",
      ArtifactType: "container_image",
      Metadata: { OS: { Family: expect.any(String), Name: expect.any(String) } },
    });
    for (const result of first.Results) {
      expect(result).toMatchObject({
        Target: expect.any(String),
        Class: expect.any(String),
        Type: expect.any(String),
      });
      for (const vulnerability of result.Vulnerabilities ?? []) {
        expect(vulnerability).toMatchObject({
          VulnerabilityID: expect.stringMatching(/^(CVE-\d{4}-\d+|GHSA-[\w-]+)$/),
          PkgName: expect.any(String),
          InstalledVersion: expect.any(String),
          Severity: expect.stringMatching(/^(CRITICAL|HIGH|MEDIUM|LOW|UNKNOWN)$/),
          PrimaryURL: expect.stringMatching(/^https:\/\//),
        });
      }
    }
  });

  it("leaves FixedVersion and Title out of some findings, like real reports", async () => {
    const images = ["app-a:1", "app-b:1", "app-c:1", "app-d:1", "app-e:1", "app-f:1"];
    const findings = (await Promise.all(images.map(report))).flatMap((r) =>
      r.Results.flatMap((result: { Vulnerabilities?: object[] }) => result.Vulnerabilities ?? []),
    );
    expect(findings.length).toBeGreaterThan(20);
    expect(findings.some((finding) => !("FixedVersion" in finding))).toBe(true);
    expect(findings.some((finding) => "FixedVersion" in finding)).toBe(true);
    expect(findings.some((finding) => !("Title" in finding))).toBe(true);
  });

  it("omits the Vulnerabilities key for clean and distroless images", async () => {
    for (const image of ["clean-app:1", "gcr.io/distroless/base-debian12"]) {
      const { Results } = await report(image);
      expect(Results.length).toBeGreaterThan(0);
      for (const result of Results) expect(result).not.toHaveProperty("Vulnerabilities");
    }
  });

  it("always has a critical finding for images named critical", async () => {
    for (const image of ["critical-a:1", "critical-b:1", "critical-c:1"]) {
      const severities = (await report(image)).Results.flatMap(
        (result: { Vulnerabilities?: { Severity: string }[] }) =>
          (result.Vulnerabilities ?? []).map((v) => v.Severity),
      );
      expect(severities).toContain("CRITICAL");
    }
  });

  it("checks its arguments like Trivy", async () => {
    const noScheme = await runStandIn(["image", "--server", "127.0.0.1:4954", "--format", "json", "nginx"]);
    expect(noScheme.code).toBe(1);
    expect(noScheme.stderr).toMatch(
      /^\S+\tFATAL\tFatal error\tflag error: server address must include HTTP or HTTPS schema\n$/,
    );

    const noImage = await runStandIn(CLIENT_ARGS);
    expect(noImage.code).toBe(1);
    expect(noImage.stderr).toContain('"trivy image" requires at least 1 argument');

    const unknownFlag = await runStandIn([...CLIENT_ARGS, "--frobnicate", "nginx"]);
    expect(unknownFlag).toMatchObject({ code: 1, stdout: "" });

    const help = await runStandIn([...CLIENT_ARGS, "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage:");
  });

  it("fails like Trivy for private and missing images, and for an unreachable server", async () => {
    const privateImage = await runStandIn([...CLIENT_ARGS, "--image-src", "remote", "private-app:1"]);
    expect(privateImage.code).toBe(1);
    expect(privateImage.stderr).toMatch(
      /\tFATAL\tFatal error\trun error: image scan error: .* in \["remote"\]: 1 error occurred:\n\t\* remote error: GET https:\/\/index\.docker\.io\/v2\/library\/private-app\/manifests\/1: UNAUTHORIZED: authentication required;/,
    );

    const withCredentials = await runStandIn([...CLIENT_ARGS, "private-app:1"], {
      TRIVY_USERNAME: "u",
      TRIVY_PASSWORD: "p",
    });
    expect(withCredentials.code).toBe(0);

    const missing = await runStandIn([...CLIENT_ARGS, "missing-app:1"]);
    expect(missing.stderr).toContain("MANIFEST_UNKNOWN: manifest unknown; unknown tag=1");

    const unavailable = await runStandIn([...CLIENT_ARGS, "nginx"], { STANDIN_TRIVY_UNAVAILABLE: "1" });
    expect(unavailable.code).toBe(1);
    expect(unavailable.stderr).toContain("twirp error internal: failed to do request");
    expect(unavailable.stderr).toContain("connect: connection refused");

    const crash = await runStandIn([...CLIENT_ARGS, "crash-app"]);
    expect(crash.code).toBe(2);
    expect(() => JSON.parse(crash.stdout)).toThrow();
  });

  it("fails like Trivy for an image its registry refuses from a given moment on", async () => {
    const refused = join(dir, "refused.txt");
    const env = { STANDIN_TRIVY_REFUSED_FILE: refused };
    expect((await runStandIn([...CLIENT_ARGS, "ghcr.io/acme/app:1"], env)).code).toBe(0);
    writeFileSync(refused, "other:1\nghcr.io/acme/app:1\n");
    const after = await runStandIn([...CLIENT_ARGS, "ghcr.io/acme/app:1"], env);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain("UNAUTHORIZED: authentication required");
    expect((await runStandIn([...CLIENT_ARGS, "ghcr.io/acme/app:2"], env)).code).toBe(0);
  });

  it("honours its own --timeout for slow images", async () => {
    const result = await runStandIn([...CLIENT_ARGS, "--timeout", "200ms", "slow-app"], {
      STANDIN_TRIVY_SLOW_MS: "5000",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("context deadline exceeded");
  });

  it("holds slow images while the hold file exists, up to its --timeout", async () => {
    const hold = join(dir, "hold");
    writeFileSync(hold, "");
    // No delay of its own: only the hold file keeps the slow image running.
    const env = { STANDIN_TRIVY_HOLD_FILE: hold, STANDIN_TRIVY_SLOW_MS: "0" };
    const held = runStandIn([...CLIENT_ARGS, "slow-app"], env);
    expect((await runStandIn([...CLIENT_ARGS, "quick-app"], env)).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readStandInTrivyRuns(runLog).find((run) => run.image === "slow-app")).toMatchObject({ end: null });

    rmSync(hold);
    expect((await held).code).toBe(0);

    writeFileSync(hold, "");
    const kept = await runStandIn([...CLIENT_ARGS, "--timeout", "200ms", "slow-app"], env);
    expect(kept.code).toBe(1);
    expect(kept.stderr).toContain("context deadline exceeded");
  });

  it.skipIf(!existsSync(SYSTEM_NODE_20))("runs on the system's Node 20 too", async () => {
    const { code, stdout } = await runStandIn([...CLIENT_ARGS, "nginx:1.27"], {}, SYSTEM_NODE_20);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).ArtifactName).toBe("nginx:1.27");
    expect(readStandInTrivyRuns(runLog)[0].outcome).toBe("report");
  });
});

describe("run log", () => {
  it("shows overlapping runs when they ran at the same time, and none when one after another", async () => {
    const slow = { STANDIN_TRIVY_SLOW_MS: "300" };
    await Promise.all(
      ["slow-a", "slow-b", "slow-c"].map((image) => runStandIn([...CLIENT_ARGS, image], slow)),
    );
    expect(maxOverlappingRuns(readStandInTrivyRuns(runLog))).toBe(3);

    rmSync(runLog);
    await runStandIn([...CLIENT_ARGS, "slow-d"], slow);
    await runStandIn([...CLIENT_ARGS, "slow-e"], slow);
    const runs = readStandInTrivyRuns(runLog);
    expect(runs.map((run) => [run.image, run.outcome])).toEqual([
      ["slow-d", "report"],
      ["slow-e", "report"],
    ]);
    expect(maxOverlappingRuns(runs)).toBe(1);
  });

  it("reads a missing log as no runs", () => {
    expect(readStandInTrivyRuns(join(dir, "never-written.jsonl"))).toEqual([]);
  });

  it("counts back-to-back runs as sequential and a run that never ended as still running", () => {
    const run = (start: number, end: number | null): StandInTrivyRun => ({
      pid: start,
      image: "x",
      args: [],
      envNames: [],
      start,
      end,
      outcome: end === null ? null : "report",
    });
    expect(maxOverlappingRuns([run(0, 10), run(10, 20), run(20, 30)])).toBe(1);
    expect(maxOverlappingRuns([run(0, 10), run(5, 20), run(8, 9), run(15, 30)])).toBe(3);
    expect(maxOverlappingRuns([run(0, null), run(100, 110)])).toBe(2);
    expect(maxOverlappingRuns([])).toBe(0);
  });
});
