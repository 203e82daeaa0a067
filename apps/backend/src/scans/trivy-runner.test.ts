import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { readStandInTrivyRuns, standInTrivyPath } from "@stackgate/simulators/trivy/index.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { classifyTrivyFailure, runTrivyScan, type TrivyScanOptions } from "./trivy-runner.ts";

// The stand-in never connects anywhere, so no server needs to listen here.
const SERVER_URL = "http://127.0.0.1:4954";

let dir: string;
let runLog: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "trivy-runner-"));
  runLog = join(dir, "runs.jsonl");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function scan(
  image: string,
  overrides: Partial<TrivyScanOptions> & { extraEnv?: Record<string, string> } = {},
) {
  const { extraEnv, ...options } = overrides;
  return runTrivyScan(image, {
    bin: standInTrivyPath,
    serverUrl: SERVER_URL,
    timeoutMs: 10_000,
    env: { PATH: process.env.PATH, HOME: dir, STANDIN_TRIVY_LOG: runLog, ...extraEnv },
    ...options,
  });
}

function writeScript(name: string, body: string, mode = 0o755): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode });
  return path;
}

describe("runTrivyScan against the stand-in trivy", () => {
  it("returns the counts of the report Trivy printed", async () => {
    const image = "ghcr.io/acme/critical-api:1.4";
    const { stdout } = await promisify(execFile)(
      standInTrivyPath,
      ["image", "--server", SERVER_URL, "--format", "json", image],
      { env: { PATH: process.env.PATH, STANDIN_TRIVY_LOG: runLog } },
    );
    const expected = { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 } as Record<string, number>;
    for (const result of JSON.parse(stdout).Results) {
      for (const vulnerability of result.Vulnerabilities ?? [])
        expected[vulnerability.Severity.toLowerCase()] += 1;
    }

    const result = await scan(image);

    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.report.counts).toEqual(expected);
    expect(result.report.counts.critical).toBeGreaterThanOrEqual(1);
    expect(result.report.vulnerabilities[0].severity).toBe("critical");
  });

  it("starts Trivy in client mode with a fixed argument list ending in the image", async () => {
    await scan("nginx:1.27", { timeoutMs: 90_500 });

    const [run] = readStandInTrivyRuns(runLog);
    expect(run.args).toEqual([
      "image",
      "--server",
      SERVER_URL,
      "--format",
      "json",
      "--quiet",
      "--scanners",
      "vuln",
      "--image-src",
      "remote",
      "--timeout",
      "91s",
      "--list-all-pkgs=false",
      "--skip-version-check",
      "--disable-telemetry",
      "nginx:1.27",
    ]);
  });

  it("adds --skip-java-db-update only when asked", async () => {
    await scan("nginx:1.27", { skipJavaDbUpdate: true });
    expect(readStandInTrivyRuns(runLog)[0].args).toContain("--skip-java-db-update");
  });

  it("reads a clean image as zero findings", async () => {
    const result = await scan("gcr.io/distroless/static-debian12:nonroot");
    expect(result).toEqual({
      ok: true,
      report: {
        counts: { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 },
        fixable: 0,
        vulnerabilities: [],
      },
    });
  });

  it("passes registry credentials through but no other secret", async () => {
    const result = await scan("registry.example.com/team/private-app:1.0", {
      extraEnv: {
        TRIVY_USERNAME: "robot",
        TRIVY_PASSWORD: "registry-password",
        DOCKER_CONFIG: join(dir, "docker"),
        BETTER_AUTH_SECRET: "auth-secret",
        KOMODO_API_SECRET: "komodo-secret",
        TRIVY_TOKEN: "server-token",
      },
    });

    expect(result.ok).toBe(true);
    expect(readStandInTrivyRuns(runLog)[0].envNames).toEqual([
      "DOCKER_CONFIG",
      "HOME",
      "NO_COLOR",
      "PATH",
      "STANDIN_TRIVY_LOG",
      "TRIVY_PASSWORD",
      "TRIVY_USERNAME",
    ]);
  });

  it("reports a private image as unauthorized with the registry's answer", async () => {
    const result = await scan("registry.example.com/team/private-app:1.0");
    expect(result).toEqual({
      ok: false,
      errorKind: "unauthorized",
      error:
        "remote error: GET https://registry.example.com/v2/team/private-app/manifests/1.0: UNAUTHORIZED: " +
        "authentication required; [map[Action:pull Class: Name:team/private-app Type:repository]]",
    });
  });

  it("reports a missing tag as not-found", async () => {
    const result = await scan("missing-app:2");
    expect(result).toEqual({
      ok: false,
      errorKind: "not-found",
      error:
        "remote error: GET https://index.docker.io/v2/library/missing-app/manifests/2: MANIFEST_UNKNOWN: manifest unknown; unknown tag=2",
    });
  });

  it("reports an unreachable Trivy server as unavailable", async () => {
    const result = await scan("nginx:1.27", { extraEnv: { STANDIN_TRIVY_UNAVAILABLE: "1" } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errorKind).toBe("unavailable");
    expect(result.error).toMatch(
      /^run error: image scan error: .*dial tcp 127\.0\.0\.1:4954: connect: connection refused$/,
    );
  });

  it("reports a crash with its panic line", async () => {
    const result = await scan("crash-app:1");
    expect(result).toEqual({
      ok: false,
      errorKind: "other",
      error: "panic: runtime error: invalid memory address or nil pointer dereference",
    });
  });

  it("stops a scan at the time limit and reports timeout once the process is gone", async () => {
    // Long enough for the stand-in to start and record its run on a loaded machine: one stopped
    // before it got that far (400 ms, four test files at once) left nothing to check. Well under
    // Trivy's own --timeout (rounded up to 2 s), so the stop is ours: at 1.5 s, a test process
    // delayed by a loaded machine let Trivy's come first.
    const started = performance.now();
    const result = await scan("slow-app:1", {
      timeoutMs: 1100,
      extraEnv: { STANDIN_TRIVY_SLOW_MS: "10000" },
    });
    const elapsed = performance.now() - started;

    expect(result).toEqual({ ok: false, errorKind: "timeout", error: "Trivy did not finish within 1.1 s" });
    expect(elapsed).toBeGreaterThanOrEqual(1090);
    expect(elapsed).toBeLessThan(4000);
    const [run] = readStandInTrivyRuns(runLog);
    expect(run.outcome).toBe("terminated");
    expect(() => process.kill(run.pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
  });

  it("stops a scan when its signal aborts, and starts none when it already has", async () => {
    const controller = new AbortController();
    const pending = scan("slow-app:1", {
      signal: controller.signal,
      extraEnv: { STANDIN_TRIVY_SLOW_MS: "10000" },
    });
    await expect.poll(() => readStandInTrivyRuns(runLog)).toHaveLength(1);
    const started = performance.now();
    controller.abort();

    expect(await pending).toEqual({
      ok: false,
      errorKind: "other",
      error: "the scan was stopped before it finished",
    });
    expect(performance.now() - started).toBeLessThan(2500);
    const [run] = readStandInTrivyRuns(runLog);
    expect(run.outcome).toBe("terminated");
    expect(() => process.kill(run.pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));

    expect(await scan("nginx:1.27", { signal: controller.signal })).toMatchObject({ ok: false });
    expect(readStandInTrivyRuns(runLog)).toHaveLength(1);
  });

  it("waits for a slow scan that stays within the limit", async () => {
    const result = await scan("slow-app:1", { timeoutMs: 5000, extraEnv: { STANDIN_TRIVY_SLOW_MS: "300" } });
    expect(result.ok).toBe(true);
  });

  it("says how to fix a missing executable", async () => {
    for (const bin of [join(dir, "no-such-trivy"), "trivy-that-is-not-installed"]) {
      expect(await scan("nginx:1.27", { bin })).toEqual({
        ok: false,
        errorKind: "unavailable",
        error: "Trivy not found — install it or set TRIVY_BIN",
      });
    }
  });

  it("reports an executable that cannot be run as unavailable", async () => {
    const result = await scan("nginx:1.27", { bin: writeScript("trivy", "exit 0", 0o644) });
    expect(result).toMatchObject({ ok: false, errorKind: "unavailable" });
  });

  it("treats a successful exit without a report as other", async () => {
    const notJson = await scan("nginx:1.27", {
      bin: writeScript("help-trivy", "echo 'Scan a container image'"),
    });
    expect(notJson).toEqual({
      ok: false,
      errorKind: "other",
      error: 'Trivy exited successfully but printed no JSON report: "Scan a container image"',
    });

    const notReport = await scan("nginx:1.27", { bin: writeScript("odd-trivy", `echo '{"hello": 1}'`) });
    expect(notReport).toMatchObject({ ok: false, errorKind: "other" });
    expect(notReport.ok === false && notReport.error).toMatch(/not a Trivy report: SchemaVersion is missing/);
  });

  it("reads a report of several megabytes", async () => {
    const entry = `{"VulnerabilityID":"CVE-2024-1","PkgName":"p","InstalledVersion":"1","Severity":"LOW","Description":"${"x".repeat(1000)}"}`;
    const big = `{"SchemaVersion":2,"Results":[{"Target":"t","Vulnerabilities":[${Array(5000).fill(entry).join(",")}]}]}`;
    const reportFile = join(dir, "big.json");
    writeFileSync(reportFile, big);
    expect(big.length).toBeGreaterThan(5_000_000);

    const result = await scan("nginx:1.27", { bin: writeScript("big-trivy", `cat '${reportFile}'`) });

    expect(result.ok && result.report.counts.low).toBe(5000);
  });

  it.each([
    ["--help"],
    ["-v"],
    ["--server=http://evil.example"],
    ["a;rm -rf /"],
    ["$(id)"],
    ["`id`"],
    ["nginx\n--help"],
    ["nginx\n"],
    [" nginx"],
    [""],
  ])("refuses %j without starting a process", async (image) => {
    const result = await scan(image);

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errorKind).toBe("other");
    expect(result.error).toMatch(/^invalid image reference: /);
    expect(readStandInTrivyRuns(runLog)).toEqual([]);
    // The run log does record every start: a valid image right after shows up.
    await scan("nginx:1.27");
    expect(readStandInTrivyRuns(runLog)).toHaveLength(1);
  });

  it("refuses a server URL without http(s) scheme without starting a process", async () => {
    const result = await scan("nginx:1.27", { serverUrl: "--format=table" });
    expect(result).toMatchObject({ ok: false, errorKind: "unavailable" });
    expect(readStandInTrivyRuns(runLog)).toEqual([]);
  });
});

describe("classifyTrivyFailure on real Trivy error texts", () => {
  const samplesFile = new URL("./fixtures/trivy-error-samples.json", import.meta.url);
  const samples = JSON.parse(readFileSync(samplesFile, "utf8")).samples as Array<{
    id: string;
    stderr: string;
  }>;
  const stderrOf = (id: string) => samples.find((sample) => sample.id === id)?.stderr ?? "";

  it.each([
    [
      "dockerhub-unauthorized-all-sources",
      "unauthorized",
      "remote error: GET https://index.docker.io/v2/library/docker-images/manifests/sha256:",
    ],
    [
      "tag-not-found-manifest-unknown",
      "not-found",
      "remote error: GET https://index.docker.io/v2/ContainerImageName: MANIFEST_UNKNOWN",
    ],
    ["registry-connection-refused", "unavailable", 'remote error: Get "https://cr.l5d.io/v2/": dial tcp'],
    [
      "harbor-private-project-unauthorized",
      "unauthorized",
      "remote error: GET http://harbor-core:80/v2/project1/artifact1/",
    ],
    ["ghcr-token-denied", "unauthorized", "init error: DB error: failed to download vulnerability DB"],
    ["server-invalid-token", "unavailable", "image scan error: scan error: image scan failed"],
    ["registry-401-non-json-body", "unauthorized", "unexpected status code 401 Unauthorized"],
    ["bad-image-reference-v0.51-format", "other", "image scan error: scan error:"],
    [
      "CONSTRUCTED-current-client-mode-remote-only",
      "unauthorized",
      "remote error: GET https://registry.example.com/v2/team/app/",
    ],
  ])("classifies %s as %s", (id, errorKind, messageStart) => {
    const stderr = stderrOf(id);
    expect(stderr).not.toBe("");
    const result = classifyTrivyFailure(stderr);
    expect(result.errorKind).toBe(errorKind);
    expect(result.error.startsWith(messageStart)).toBe(true);
  });

  it("strips colour codes, timestamp and level", () => {
    const stderr =
      "2023-03-15T10:50:25.082Z\t\u001b[31mFATAL\u001b[0m\timage scan error: scan error: scan failed: failed analysis: " +
      'unable to get missing layers: unable to fetch missing layers: twirp error internal: failed to do request: Post "http://trivy:4954/twirp/trivy.cache.v1.Cache/MissingBlobs": dial tcp 10.0.0.2:4954: connect: connection refused\n';
    const result = classifyTrivyFailure(stderr);
    expect(result.errorKind).toBe("unavailable");
    expect(result.error).toMatch(/^image scan error: .*connection refused$/);
  });

  it("recognises Trivy's own time-out after its warning line", () => {
    const stderr =
      "2026-06-30T13:19:04+03:00\tWARN\tProvide a higher timeout value, see https://trivy.dev/docs/v0.68/guide/references/troubleshooting#timeout\n" +
      "2026-06-30T13:19:04+03:00\tFATAL\tFatal error\trun error: image scan error: scan error: scan failed: failed analysis: analyze error: pipeline error: context deadline exceeded\n";
    expect(classifyTrivyFailure(stderr)).toEqual({
      errorKind: "timeout",
      error:
        "run error: image scan error: scan error: scan failed: failed analysis: analyze error: pipeline error: context deadline exceeded",
    });
  });

  it("does not take a local 'permission denied' or a digest containing 401 for an auth failure", () => {
    expect(
      classifyTrivyFailure("FATAL\topen /root/.cache/trivy/fanal/fanal.db: permission denied").errorKind,
    ).toBe("other");
    const digest = `sha256:ab401cd${"0".repeat(57)}`;
    expect(
      classifyTrivyFailure(`* remote error: GET https://r.example/v2/a/manifests/${digest}: MANIFEST_UNKNOWN`)
        .errorKind,
    ).toBe("not-found");
  });

  it("keeps long messages short", () => {
    expect(classifyTrivyFailure(`FATAL\t${"x".repeat(2000)}`).error).toHaveLength(500);
  });
});
