/**
 * Runs one `trivy image` in client mode against a Trivy server and turns what it
 * prints into a report or a classified failure. Trivy is started with execFile and
 * an argument array, never through a shell, and only after the image reference
 * passed our own grammar check (so no argument can be read as an option).
 *
 * Never throws: every outcome, including a reference we refuse, is a result.
 * A refused reference returns `other` / "invalid image reference: …" and starts
 * no process.
 */

import { type ExecFileException, execFile } from "node:child_process";
import { stripVTControlCharacters } from "node:util";
import { parseImageReference } from "@stackgate/contract/image-reference.ts";
import { parseTrivyReport, TrivyReportError, type TrivyReportSummary } from "./trivy-report.ts";

export type TrivyErrorKind = "unauthorized" | "not-found" | "unavailable" | "timeout" | "other";

export type TrivyScanResult =
  | { ok: true; report: TrivyReportSummary }
  | { ok: false; errorKind: TrivyErrorKind; error: string };

export interface TrivyScanOptions {
  /** Executable name (looked up in PATH) or path; TRIVY_BIN, default "trivy". */
  bin: string;
  /** The Trivy server, e.g. http://scanner:4954 (TRIVY_SERVER_URL). */
  serverUrl: string;
  /** Per-scan limit; Trivy gets it as --timeout and the process is stopped when it runs out. */
  timeoutMs: number;
  /** Environment to draw from (default process.env); only the names in TRIVY_ENV_NAMES reach Trivy. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Adds --skip-java-db-update. Only for installs that provision the Java DB in the cache
   * ahead of time: on a first run Trivy refuses the flag as soon as it meets a JAR.
   */
  skipJavaDbUpdate?: boolean;
  /** Stops the scan (SIGTERM, then SIGKILL after a grace period), e.g. when the backend shuts down. */
  signal?: AbortSignal;
}

/**
 * What Trivy may see of our environment: the basics to run and reach registries,
 * plus the registry credentials. Everything else (our own secrets) stays out.
 */
export const TRIVY_ENV_NAMES: ReadonlySet<string> = new Set([
  "PATH",
  "HOME",
  "TMPDIR",
  "XDG_CACHE_HOME",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "TRIVY_USERNAME",
  "TRIVY_PASSWORD",
  "DOCKER_CONFIG",
]);
/** Knobs of the repository's stand-in trivy (tests and demo); never secrets. */
const STAND_IN_ENV_PREFIX = "STANDIN_TRIVY_";

// Reports of big images run to several MB (more with package lists, which we switch off).
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
// After SIGTERM Trivy gets this long to clean up its temporary files before SIGKILL.
const KILL_GRACE_MS = 2000;
const MAX_ERROR_LENGTH = 500;
const TRIVY_NOT_FOUND = "Trivy not found — install it or set TRIVY_BIN";
const CANNOT_START = "Trivy cannot be started";
const BAD_SERVER_URL = "the Trivy server URL must start with http:// or https://";
const STOPPED = "the scan was stopped before it finished";

export async function runTrivyScan(image: string, options: TrivyScanOptions): Promise<TrivyScanResult> {
  const reference = parseImageReference(image);
  if (!reference.ok) return failure("other", `invalid image reference: ${reference.reason}`);
  if (!/^https?:\/\/[^\s]+$/i.test(options.serverUrl)) {
    return failure("unavailable", BAD_SERVER_URL);
  }
  if (!(options.timeoutMs > 0)) return failure("other", "the scan time limit must be a positive number");
  if (options.signal?.aborted) return failure("other", STOPPED);

  const run = await runProcess(
    options.bin,
    trivyArguments(image, options),
    trivyEnvironment(options.env ?? process.env),
    options.timeoutMs,
    options.signal,
  );

  if (run.stopped) return failure("other", STOPPED);
  const timedOut = failure("timeout", `Trivy did not finish within ${formatSeconds(options.timeoutMs)}`);
  if (run.timedOut) return timedOut;
  if (run.error) {
    // Trivy's own --timeout may end it just before the stop does: one message for both.
    const failed = describeProcessFailure(run.error, run.stderr);
    return !failed.ok && failed.errorKind === "timeout" ? timedOut : failed;
  }
  return readReport(run.stdout);
}

/**
 * Client mode with a remote-only image source (no docker/containerd/podman noise),
 * vulnerabilities only, no package lists (they multiply the report size), and no
 * calls home: --skip-version-check and --disable-telemetry together stop the
 * per-run request to check.trivy.dev (v0.63+), which also stalls in closed networks.
 */
function trivyArguments(image: string, options: TrivyScanOptions): string[] {
  const timeoutSeconds = Math.max(1, Math.ceil(options.timeoutMs / 1000));
  return [
    "image",
    "--server",
    options.serverUrl,
    "--format",
    "json",
    "--quiet",
    "--scanners",
    "vuln",
    "--image-src",
    "remote",
    "--timeout",
    `${timeoutSeconds}s`,
    "--list-all-pkgs=false",
    "--skip-version-check",
    "--disable-telemetry",
    ...(options.skipJavaDbUpdate ? ["--skip-java-db-update"] : []),
    image,
  ];
}

function trivyEnvironment(source: Readonly<Record<string, string | undefined>>): Record<string, string> {
  // Trivy colours its log when it thinks it has a terminal; we parse that log.
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const [name, value] of Object.entries(source)) {
    const forwarded = TRIVY_ENV_NAMES.has(name) || name.startsWith(STAND_IN_ENV_PREFIX);
    if (forwarded && value !== undefined) env[name] = value;
  }
  return env;
}

interface ProcessRun {
  timedOut: boolean;
  stopped: boolean;
  error: ExecFileException | null;
  stdout: string;
  stderr: string;
}

/** Resolves only once the process is gone, also after a time-out or a stop. */
function runProcess(
  bin: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<ProcessRun> {
  return new Promise((resolve) => {
    let timedOut = false;
    let stopped = false;
    let forceKill: NodeJS.Timeout | undefined;
    const terminate = () => {
      if (forceKill) return;
      child.kill("SIGTERM");
      forceKill = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      terminate();
    }, timeoutMs);
    const stop = () => {
      stopped = true;
      terminate();
    };
    const child = execFile(
      bin,
      args,
      { env, maxBuffer: MAX_OUTPUT_BYTES, encoding: "utf8" },
      (error, stdout, stderr) => {
        clearTimeout(deadline);
        clearTimeout(forceKill);
        signal?.removeEventListener("abort", stop);
        resolve({ timedOut, stopped, error, stdout, stderr });
      },
    );
    signal?.addEventListener("abort", stop, { once: true });
    child.stdin?.end();
  });
}

function describeProcessFailure(error: ExecFileException, stderr: string): TrivyScanResult {
  // A string code means the process could not start or was cut off by us; a number is its exit status.
  switch (error.code) {
    case "ENOENT":
      return failure("unavailable", TRIVY_NOT_FOUND);
    case "EACCES":
      return failure("unavailable", `${CANNOT_START}: the file is not executable (EACCES)`);
    case "ERR_CHILD_PROCESS_STDIO_MAXBUFFER":
      return failure("other", `Trivy printed more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB`);
  }
  if (typeof error.code === "string") {
    return failure("unavailable", `${CANNOT_START}: ${error.message}`);
  }
  const exit = error.signal ? `signal ${error.signal}` : `exit status ${error.code ?? "unknown"}`;
  const { errorKind, error: message } = classifyTrivyFailure(stderr);
  return failure(errorKind, message || `Trivy failed with ${exit} and printed no error`);
}

function readReport(stdout: string): TrivyScanResult {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    const firstLine = stdout.trim().split("\n")[0] ?? "";
    return failure(
      "other",
      `Trivy exited successfully but printed no JSON report: ${JSON.stringify(firstLine.slice(0, 80))}`,
    );
  }
  try {
    return { ok: true, report: parseTrivyReport(json) };
  } catch (error) {
    if (error instanceof TrivyReportError) return failure("other", `Trivy's output is ${error.message}`);
    throw error;
  }
}

const FAILURE_PATTERNS: ReadonlyArray<readonly [TrivyErrorKind, RegExp]> = [
  ["timeout", /context deadline exceeded/i],
  // Registry codes are matched in capitals only, so that "permission denied" on a local file is no auth failure.
  ["unauthorized", /UNAUTHORIZED|DENIED|[Aa]uthentication required|\b401\b/],
  ["not-found", /MANIFEST_UNKNOWN|NAME_UNKNOWN/],
  ["unavailable", /connection refused|twirp|no such host|network is unreachable|i\/o timeout/i],
];

// "<RFC3339>\tFATAL\tFatal error\t…" (v0.51+), older "<time>  FATAL  …", either without a timestamp.
const LOG_PREFIX =
  /^(?:\d{4}-\d{2}-\d{2}[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?\s+)?(?:FATAL|ERROR|WARN|INFO|DEBUG)\s+(?:Fatal error\s+)?/;

/**
 * Classifies a failed run from its stderr and picks the line worth showing: the
 * `* remote error: …` line of a multi-error chain, a Go panic, else the last line,
 * without colours, timestamp and level.
 */
export function classifyTrivyFailure(stderr: string): { errorKind: TrivyErrorKind; error: string } {
  const text = stripVTControlCharacters(stderr);
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const chosen =
    lines.findLast((line) => line.startsWith("* remote error:")) ??
    lines.find((line) => line.startsWith("panic:")) ??
    lines.at(-1) ??
    "";
  const error = truncate(chosen.replace(LOG_PREFIX, "").replace(/^\* /, ""));
  const kindOf = (subject: string) => FAILURE_PATTERNS.find(([, pattern]) => pattern.test(subject))?.[0];
  return { errorKind: kindOf(error) ?? kindOf(text) ?? "other", error };
}

/**
 * When a failure lies with the scanner rather than with the image, so that no scan can succeed until
 * someone acts: why, and what to do. Trivy cannot be started, or its server cannot be used (client
 * mode talks to the server over Twirp; a registry that cannot be reached fails before that, and is the
 * image's problem). Undefined for a failure of one image.
 */
export function scannerUnavailableReason(
  result: TrivyScanResult,
  { bin, serverUrl }: Pick<TrivyScanOptions, "bin" | "serverUrl">,
): string | undefined {
  if (result.ok || result.errorKind !== "unavailable") return undefined;
  if (result.error === TRIVY_NOT_FOUND) {
    return `Trivy not found (TRIVY_BIN=${bin}): install Trivy and run \`trivy server --listen ${listenAddress(serverUrl)}\`, or set TRIVY_BIN to its path`;
  }
  if (result.error.startsWith(CANNOT_START)) return `${result.error}; check TRIVY_BIN (${bin})`;
  if (result.error === BAD_SERVER_URL)
    return `TRIVY_SERVER_URL (${serverUrl}) must start with http:// or https://`;
  if (/twirp/i.test(result.error)) {
    // "…: dial tcp 127.0.0.1:4954: connect: connection refused" → "connect: connection refused"
    const cause = result.error.split(": ").slice(-2).join(": ");
    return `The Trivy server at ${serverUrl} cannot be used (${cause}): run \`trivy server --listen ${listenAddress(serverUrl)}\`, or set TRIVY_SERVER_URL`;
  }
  return undefined;
}

function listenAddress(serverUrl: string): string {
  try {
    return new URL(serverUrl).host;
  } catch {
    return "127.0.0.1:4954";
  }
}

function truncate(text: string): string {
  return text.length <= MAX_ERROR_LENGTH ? text : `${text.slice(0, MAX_ERROR_LENGTH - 1)}…`;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function failure(errorKind: TrivyErrorKind, error: string): TrivyScanResult {
  return { ok: false, errorKind, error };
}
