import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseTrivyReport, TrivyReportError } from "./trivy-report.ts";

// Real Trivy reports, copied verbatim; where each comes from: fixtures/SOURCES.md.
const FIXTURES = new URL("./fixtures/", import.meta.url);

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), "utf8"));
}

const minimalVulnerability = {
  VulnerabilityID: "CVE-2024-0001",
  PkgName: "openssl",
  InstalledVersion: "3.0.1",
  Severity: "HIGH",
};

function reportWith(vulnerabilities: unknown): unknown {
  return {
    SchemaVersion: 2,
    Results: [{ Target: "x", Class: "os-pkgs", Type: "alpine", Vulnerabilities: vulnerabilities }],
  };
}

describe("parseTrivyReport on real reports", () => {
  it("counts all five severities of the alpine + Java report, all fixable", () => {
    const summary = parseTrivyReport(fixture("trivy-image-alpine-java-all-severities.json"));
    expect(summary.counts).toEqual({ critical: 5, high: 29, medium: 26, low: 5, unknown: 2 });
    expect(summary.vulnerabilities).toHaveLength(67);
    expect(summary.fixable).toBe(67);
    expect(summary.vulnerabilities).toContainEqual({
      id: "CVE-2024-9143",
      severity: "low",
      package: "libcrypto3",
      installedVersion: "3.0.15-r0",
      fixedVersion: "3.0.15-r1",
      title: "openssl: Low-level invalid GF(2^m) parameters lead to OOB memory access",
      url: "https://avd.aquasec.com/nvd/cve-2024-9143",
    });
    // FixedVersion lists of several branches are kept as Trivy wrote them.
    expect(summary.vulnerabilities.map((v) => v.fixedVersion)).toContain("1.3.12, 1.4.12, 1.2.13");
  });

  it("keeps unfixed and untitled entries of the ubuntu + tomcat report", () => {
    const summary = parseTrivyReport(fixture("trivy-image-ubuntu-tomcat-unfixed.json"));
    expect(summary.counts).toEqual({ critical: 4, high: 33, medium: 37, low: 70, unknown: 0 });
    expect(summary.vulnerabilities).toHaveLength(144);
    expect(summary.vulnerabilities.filter((v) => v.fixedVersion === null)).toHaveLength(79);
    expect(summary.fixable).toBe(144 - 79);
    expect(summary.vulnerabilities.filter((v) => v.title === null)).toHaveLength(5);
    expect(summary.vulnerabilities.every((v) => v.url?.startsWith("https://"))).toBe(true);
  });

  it("sorts worst severity first", () => {
    const { vulnerabilities } = parseTrivyReport(fixture("trivy-image-ubuntu-tomcat-unfixed.json"));
    const order = ["critical", "high", "medium", "low", "unknown"];
    const ranks = vulnerabilities.map((v) => order.indexOf(v.severity));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(vulnerabilities[0].severity).toBe("critical");
    expect(vulnerabilities.at(-1)?.severity).toBe("low");
  });

  it.each(["trivy-image-clean-with-packages.json", "trivy-image-clean-minimal.json"])(
    "reads the clean report %s as zero findings",
    (name) => {
      expect(parseTrivyReport(fixture(name))).toEqual({
        counts: { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 },
        fixable: 0,
        vulnerabilities: [],
      });
    },
  );
});

describe("parseTrivyReport on edge cases", () => {
  it("accepts a report without Results and results without or with null Vulnerabilities", () => {
    expect(parseTrivyReport({ SchemaVersion: 2, ArtifactName: "scratch-image" }).vulnerabilities).toEqual([]);
    expect(parseTrivyReport({ SchemaVersion: 2, Results: null }).vulnerabilities).toEqual([]);
    expect(parseTrivyReport(reportWith(null)).vulnerabilities).toEqual([]);
  });

  it("fills absent optional fields with null", () => {
    expect(parseTrivyReport(reportWith([minimalVulnerability])).vulnerabilities).toEqual([
      {
        id: "CVE-2024-0001",
        severity: "high",
        package: "openssl",
        installedVersion: "3.0.1",
        fixedVersion: null,
        title: null,
        url: null,
      },
    ]);
  });

  it("maps unknown or missing severities to unknown and drops non-http links", () => {
    const [first, second] = parseTrivyReport(
      reportWith([
        {
          ...minimalVulnerability,
          Severity: "NEGLIGIBLE",
          PrimaryURL: "javascript:alert(1)",
          FixedVersion: "",
        },
        { ...minimalVulnerability, VulnerabilityID: "CVE-2024-0002", Severity: undefined },
      ]),
    ).vulnerabilities;
    expect(first).toMatchObject({ severity: "unknown", url: null, fixedVersion: null });
    expect(second.severity).toBe("unknown");
  });

  it.each([
    ["null", null, /expected a JSON object, got null/],
    ["a string", "not json", /got string/],
    ["a pre-v0.20 bare array", [], /got an array/],
    ["an object without SchemaVersion", {}, /SchemaVersion is missing/],
    ["another SchemaVersion", { SchemaVersion: 1, Results: [] }, /SchemaVersion is 1, expected 2/],
    ["Results that are not an array", { SchemaVersion: 2, Results: {} }, /Results is not an array/],
    ["a result that is not an object", { SchemaVersion: 2, Results: [42] }, /Results\[0\] is not an object/],
    [
      "Vulnerabilities that are not an array",
      reportWith("many"),
      /Results\[0\]\.Vulnerabilities is not an array/,
    ],
    [
      "a vulnerability without an id",
      reportWith([{ ...minimalVulnerability, VulnerabilityID: undefined }]),
      /Vulnerabilities\[0\]\.VulnerabilityID is missing/,
    ],
  ])("rejects %s", (_label, body, message) => {
    expect(() => parseTrivyReport(body)).toThrow(TrivyReportError);
    expect(() => parseTrivyReport(body)).toThrow(message);
  });
});
