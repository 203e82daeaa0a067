/**
 * Reads the JSON report of `trivy image --format json` (SchemaVersion 2) into the
 * few facts we keep. Trivy omits almost every empty field: a clean image has no
 * `Vulnerabilities` key, an image without OS or packages may have no `Results`,
 * and only VulnerabilityID, PkgName and InstalledVersion are always present.
 */

import { byCodeUnits } from "../platform/compare.ts";

export const SEVERITIES = ["critical", "high", "medium", "low", "unknown"] as const;
export type Severity = (typeof SEVERITIES)[number];
export type SeverityCounts = Record<Severity, number>;

export interface Vulnerability {
  id: string;
  severity: Severity;
  package: string;
  installedVersion: string;
  /** May list several versions, e.g. "1.8.2, 0.30.0"; null when no fix exists. */
  fixedVersion: string | null;
  title: string | null;
  /** Only http(s) links are kept, as the UI renders them. */
  url: string | null;
}

export interface TrivyReportSummary {
  counts: SeverityCounts;
  /** Vulnerabilities that have a fixed version. */
  fixable: number;
  /** Worst severity first. */
  vulnerabilities: Vulnerability[];
}

export class TrivyReportError extends Error {
  name = "TrivyReportError";
}

export function parseTrivyReport(json: unknown): TrivyReportSummary {
  if (!isObject(json)) {
    const kind = Array.isArray(json)
      ? "an array (Trivy before v0.20?)"
      : json === null
        ? "null"
        : typeof json;
    throw new TrivyReportError(`not a Trivy report: expected a JSON object, got ${kind}`);
  }
  if (json.SchemaVersion !== 2) {
    throw new TrivyReportError(
      `not a Trivy report: SchemaVersion is ${describeValue(json.SchemaVersion)}, expected 2`,
    );
  }
  const results = optionalArray(json.Results, "Results");

  const vulnerabilities: Vulnerability[] = [];
  results.forEach((result, resultIndex) => {
    const where = `Results[${resultIndex}]`;
    if (!isObject(result)) throw new TrivyReportError(`not a Trivy report: ${where} is not an object`);
    optionalArray(result.Vulnerabilities, `${where}.Vulnerabilities`).forEach((entry, index) => {
      vulnerabilities.push(readVulnerability(entry, `${where}.Vulnerabilities[${index}]`));
    });
  });

  vulnerabilities.sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      byCodeUnits(a.id, b.id) ||
      byCodeUnits(a.package, b.package),
  );

  const counts = Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as SeverityCounts;
  for (const vulnerability of vulnerabilities) counts[vulnerability.severity] += 1;

  return {
    counts,
    fixable: vulnerabilities.filter((vulnerability) => vulnerability.fixedVersion !== null).length,
    vulnerabilities,
  };
}

function readVulnerability(entry: unknown, where: string): Vulnerability {
  if (!isObject(entry)) throw new TrivyReportError(`not a Trivy report: ${where} is not an object`);
  return {
    id: requiredString(entry, "VulnerabilityID", where),
    severity: toSeverity(entry.Severity),
    package: requiredString(entry, "PkgName", where),
    installedVersion: requiredString(entry, "InstalledVersion", where),
    fixedVersion: optionalString(entry.FixedVersion),
    title: optionalString(entry.Title),
    url: httpUrlOrNull(entry.PrimaryURL),
  };
}

/** Trivy itself treats any severity it does not know as UNKNOWN. */
function toSeverity(value: unknown): Severity {
  const lower = typeof value === "string" ? value.toLowerCase() : "";
  return (SEVERITIES as readonly string[]).includes(lower) ? (lower as Severity) : "unknown";
}

function requiredString(entry: Record<string, unknown>, key: string, where: string): string {
  const value = entry[key];
  if (typeof value !== "string" || value.length === 0) {
    throw new TrivyReportError(`not a Trivy report: ${where}.${key} is ${describeValue(value)}`);
  }
  return value;
}

function optionalString(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function httpUrlOrNull(value: unknown): string | null {
  const text = optionalString(value);
  return text !== null && /^https?:\/\//i.test(text) ? text : null;
}

/** Missing and null both mean "none" (omitempty); anything else must be an array. */
function optionalArray(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TrivyReportError(`not a Trivy report: ${where} is not an array`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (typeof value === "string") return value === "" ? "empty" : JSON.stringify(value.slice(0, 40));
  return value === null
    ? "null"
    : typeof value === "object"
      ? Array.isArray(value)
        ? "an array"
        : "an object"
      : String(value);
}
