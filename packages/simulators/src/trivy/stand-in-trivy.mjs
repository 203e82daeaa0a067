// A stand-in for `trivy image --server URL --format json ...` (client mode) for tests
// and the demo. Plain JavaScript so it runs on Node 20 and 24 alike; started through
// ./bin/trivy. The report is made up here, deterministically from the image name;
// error texts follow Trivy v0.61+ (see shared/integrations/trivy-ntfy.md).
//
// Image name words: `clean`/`distroless` → no findings; `critical` → at least one
// CRITICAL; `private` → UNAUTHORIZED (unless TRIVY_USERNAME and TRIVY_PASSWORD are
// set); `missing` → MANIFEST_UNKNOWN; `crash` → garbage on stdout and exit 2;
// `slow` → waits STANDIN_TRIVY_SLOW_MS (default 1500) first, or fails with Trivy's
// "context deadline exceeded" when its --timeout is shorter.
// STANDIN_TRIVY_SCAN_MS=N → every other image takes N ms, as a real scan takes its time (default 0).
// STANDIN_TRIVY_UNAVAILABLE=1 → the "connection refused" failure of an unreachable server.
// STANDIN_TRIVY_REFUSED_FILE=FILE → the images listed in FILE (one a line) are refused by their
// registry (UNAUTHORIZED), as after its credentials were revoked; read at every run, so a test can
// make an image that scanned fine fail from then on.
// STANDIN_TRIVY_HOLD_FILE=FILE → `slow` images wait while FILE exists instead (up to --timeout), so a
// test decides when they end rather than racing a delay on a busy machine.
// STANDIN_TRIVY_LOG=FILE → one JSON line at the start and one at the end of each run.

import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";

const VALUE_FLAGS = new Set([
  "server",
  "format",
  "scanners",
  "image-src",
  "timeout",
  "cache-dir",
  "severity",
  "pkg-types",
  "token",
  "token-header",
]);
const BOOLEAN_FLAGS = new Set([
  "quiet",
  "skip-java-db-update",
  "skip-db-update",
  "skip-version-check",
  "disable-telemetry",
  "list-all-pkgs",
  "no-progress",
  "insecure",
  "ignore-unfixed",
  "debug",
]);
const SHORT_FLAGS = new Map([
  ["f", "format"],
  ["q", "quiet"],
  ["d", "debug"],
]);
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const EXIT_FATAL = 1;
const EXIT_GO_PANIC = 2;

const startedAt = now();
const argv = process.argv.slice(2);
const parsed = parseArguments(argv);
const image = parsed.positional?.[1] ?? null;

/** Whether the image is listed in STANDIN_TRIVY_REFUSED_FILE (no file: none is). */
function refusedByRegistry(name) {
  const path = process.env.STANDIN_TRIVY_REFUSED_FILE;
  if (!path) return false;
  try {
    return readFileSync(path, "utf8")
      .split("\n")
      .some((line) => line.trim() === name);
  } catch (error) {
    if (error.code === "ENOENT") return false;
    throw error;
  }
}

/** Waits while `path` exists, up to `limitMs`; whether it went away in that time. */
async function heldWhileExists(path, limitMs) {
  const start = now();
  while (existsSync(path)) {
    if (now() - start >= limitMs) return false;
    await sleep(20);
  }
  return true;
}

/** Sleeps `ms`, or `limitMs` when that is shorter; whether the whole `ms` fit. */
async function sleepUpTo(ms, limitMs) {
  await sleep(Math.min(ms, limitMs));
  return ms <= limitMs;
}

/**
 * `trivy server --listen HOST:PORT [--cache-dir DIR] …`, as the one container starts it: answers
 * Trivy server's `/healthz` until stopped. The stand-in client never asks it anything (it makes its
 * reports up); STANDIN_TRIVY_SERVER_EXIT=N exits with N at once instead, as a server that fails.
 */
async function serve() {
  const listenIndex = argv.indexOf("--listen");
  const listen = listenIndex === -1 ? "localhost:4954" : argv[listenIndex + 1];
  const separator = listen.lastIndexOf(":");
  const host = listen.slice(0, separator).replace(/^\[(.*)\]$/, "$1") || "0.0.0.0";
  const port = Number(listen.slice(separator + 1));
  if (process.env.STANDIN_TRIVY_SERVER_EXIT) {
    logLine("FATAL", "stand-in trivy server told to fail (STANDIN_TRIVY_SERVER_EXIT)");
    return finish("server-failed", Number(process.env.STANDIN_TRIVY_SERVER_EXIT));
  }
  const { createServer } = await import("node:http");
  const server = createServer((request, response) => {
    const healthy = request.url === "/healthz";
    response.writeHead(healthy ? 200 : 404, { "content-type": "text/plain" });
    response.end(healthy ? "ok" : "not found");
  });
  server.listen(port, host, () => logLine("INFO", `Listening ${listen}...`));
}

async function main() {
  if (argv[0] === "server") return serve();
  if (argv.includes("--help") || argv.includes("-h")) {
    // Like Trivy: help goes to stdout with exit status 0, so a caller must not mistake it for a report.
    process.stdout.write("Scan a container image\n\nUsage:\n  trivy image [flags] IMAGE_NAME\n");
    return finish("help", 0);
  }
  if (parsed.error) return fail("usage-error", parsed.error);
  const { flags, positional } = parsed;

  if (positional[0] !== "image" && positional[0] !== "i") {
    return fail("usage-error", `unknown command ${JSON.stringify(positional[0] ?? "")} for "trivy"`);
  }
  if (positional.length < 2) {
    return fail("usage-error", `"trivy image" requires at least 1 argument or --input option`);
  }
  if (positional.length > 2) return fail("usage-error", "multiple targets cannot be specified");
  if (flags.server === undefined) {
    return fail(
      "usage-error",
      "the stand-in trivy only knows client mode: pass --server http(s)://HOST:PORT",
    );
  }
  if (!/^https?:\/\//.test(flags.server)) {
    return fail("usage-error", "flag error: server address must include HTTP or HTTPS schema");
  }
  if (flags.format !== "json") return fail("usage-error", "the stand-in trivy only prints --format json");
  const timeoutMs = flags.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseGoDuration(flags.timeout);
  if (timeoutMs === null) {
    return fail("usage-error", `invalid argument "${flags.timeout}" for "--timeout" flag`);
  }

  const scanMs = Number(process.env.STANDIN_TRIVY_SCAN_MS ?? 0);
  if (!image.includes("slow") && scanMs > 0) await sleep(Math.min(scanMs, timeoutMs));
  if (image.includes("slow")) {
    const holdFile = process.env.STANDIN_TRIVY_HOLD_FILE;
    const slowMs = Number(process.env.STANDIN_TRIVY_SLOW_MS ?? 1500);
    const endedInTime = holdFile
      ? await heldWhileExists(holdFile, timeoutMs)
      : await sleepUpTo(slowMs, timeoutMs);
    if (!endedInTime) {
      if (!flags.quiet) {
        logLine(
          "WARN",
          "Provide a higher timeout value, see https://trivy.dev/docs/v0.74/guide/references/troubleshooting#timeout",
        );
      }
      return fail(
        "timeout",
        "run error: image scan error: scan error: scan failed: failed analysis: analyze error: pipeline error: context deadline exceeded",
      );
    }
  }

  const sources = (flags["image-src"] ?? "docker,containerd,podman,remote").split(",");
  const hasCredentials = Boolean(process.env.TRIVY_USERNAME && process.env.TRIVY_PASSWORD);
  if ((image.includes("private") && !hasCredentials) || refusedByRegistry(image)) {
    return fail("unauthorized", imageNotFoundChain(sources, registryError(image, "unauthorized")));
  }
  if (image.includes("missing")) {
    return fail("not-found", imageNotFoundChain(sources, registryError(image, "manifest-unknown")));
  }
  if (process.env.STANDIN_TRIVY_UNAVAILABLE === "1") {
    const server = flags.server.replace(/\/+$/, "");
    const { host } = new URL(server);
    return fail(
      "unavailable",
      "run error: image scan error: scan error: scan failed: failed analysis: unable to get missing layers: " +
        "unable to fetch missing layers: twirp error internal: failed to do request: " +
        `Post "${server}/twirp/trivy.cache.v1.Cache/MissingBlobs": dial tcp ${host}: connect: connection refused`,
    );
  }
  if (image.includes("crash")) {
    process.stdout.write('{"SchemaVersion": 2, "ArtifactName": "');
    process.stderr.write(
      "panic: runtime error: invalid memory address or nil pointer dereference\n" +
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1b2c3d4]\n\n" +
        "goroutine 1 [running]:\n" +
        "github.com/aquasecurity/trivy/pkg/scanner/local.(*Service).Scan(...)\n" +
        "\t/home/runner/work/trivy/trivy/pkg/scanner/local/scan.go:115 +0x2a4\n",
    );
    return finish("crash", EXIT_GO_PANIC);
  }

  process.stdout.write(`${JSON.stringify(buildReport(image), null, 2)}\n`, () => finish("report", 0));
}

// ---------------------------------------------------------------- arguments

function parseArguments(args) {
  const flags = {};
  const positional = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (!arg.startsWith("-") || arg === "-") {
      positional.push(arg);
      continue;
    }
    const [rawName, inlineValue] = splitOnce(arg.replace(/^--?/, ""), "=");
    const name = arg.startsWith("--") ? rawName : SHORT_FLAGS.get(rawName);
    if (name !== undefined && VALUE_FLAGS.has(name)) {
      const value = inlineValue ?? args[++index];
      if (value === undefined) return { error: `flag needs an argument: --${name}` };
      flags[name] = value;
    } else if (name !== undefined && BOOLEAN_FLAGS.has(name)) {
      if (inlineValue !== undefined && !["true", "false"].includes(inlineValue)) {
        return {
          error: `invalid argument "${inlineValue}" for "--${name}" flag: strconv.ParseBool: parsing "${inlineValue}": invalid syntax`,
        };
      }
      flags[name] = inlineValue !== "false";
    } else {
      return { error: `unknown flag: ${arg.split("=")[0]}` };
    }
  }
  return { flags, positional };
}

function splitOnce(text, separator) {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** Go durations such as "300s", "5m", "1m30s", "1500ms". */
function parseGoDuration(text) {
  const units = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join("") !== text) return null;
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * units[unit], 0);
}

// ---------------------------------------------------------------- error texts

function describeReference(reference) {
  let rest = reference;
  let digest = null;
  let tag = null;
  if (rest.includes("@")) [rest, digest] = splitOnce(rest, "@");
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) [rest, tag] = [rest.slice(0, colon), rest.slice(colon + 1)];
  const slash = rest.indexOf("/");
  const first = rest.slice(0, slash);
  const hasRegistry = slash !== -1 && (/[.:]/.test(first) || first === "localhost");
  const registry = hasRegistry && first !== "docker.io" ? first : "index.docker.io";
  let repository = hasRegistry ? rest.slice(slash + 1) : rest;
  if (registry === "index.docker.io" && !repository.includes("/")) repository = `library/${repository}`;
  return { registry, repository, tag: tag ?? "latest", manifest: digest ?? tag ?? "latest" };
}

function registryError(reference, kind) {
  const { registry, repository, tag, manifest } = describeReference(reference);
  const scheme = registry.startsWith("localhost") ? "http" : "https";
  const url = `${scheme}://${registry}/v2/${repository}/manifests/${manifest}`;
  return kind === "unauthorized"
    ? `GET ${url}: UNAUTHORIZED: authentication required; [map[Action:pull Class: Name:${repository} Type:repository]]`
    : `GET ${url}: MANIFEST_UNKNOWN: manifest unknown; unknown tag=${tag}`;
}

/** Trivy tries every image source in turn and lists each one's failure. */
function imageNotFoundChain(sources, remoteError) {
  const perSource = {
    docker: `docker error: unable to inspect the image (${image}): Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?`,
    containerd: "containerd error: containerd socket not found: /run/containerd/containerd.sock",
    podman:
      "podman error: unable to initialize Podman client: no podman socket found: stat podman/podman.sock: no such file or directory",
    remote: `remote error: ${remoteError}`,
  };
  const lines = sources.map(
    (source) => `\t* ${perSource[source] ?? `${source} error: unknown image source`}`,
  );
  const count = lines.length === 1 ? "1 error occurred" : `${lines.length} errors occurred`;
  return (
    "run error: image scan error: scan error: unable to initialize a scan service: unable to initialize container image: " +
    `unable to find the specified image "${image}" in ${JSON.stringify(sources).replaceAll(",", " ")}: ${count}:\n` +
    `${lines.join("\n")}\n\n`
  );
}

// ---------------------------------------------------------------- the report

const OPERATING_SYSTEMS = {
  alpine: {
    name: "3.20.3",
    packages: [
      ["busybox", "1.36.1-r29"],
      ["musl", "1.2.5-r0"],
      ["libcrypto3", "3.3.2-r0"],
      ["libssl3", "3.3.2-r0"],
      ["zlib", "1.3.1-r1"],
      ["apk-tools", "2.14.4-r1"],
      ["libexpat", "2.6.2-r0"],
      ["libcurl", "8.9.1-r2"],
      ["sqlite-libs", "3.45.3-r1"],
    ],
  },
  debian: {
    name: "12.8",
    packages: [
      ["libc6", "2.36-9+deb12u8"],
      ["openssl", "3.0.14-1~deb12u2"],
      ["libssl3", "3.0.14-1~deb12u2"],
      ["zlib1g", "1:1.2.13.dfsg-1"],
      ["libexpat1", "2.5.0-1+deb12u1"],
      ["libcurl4", "7.88.1-10+deb12u7"],
      ["perl-base", "5.36.0-7+deb12u1"],
      ["libgnutls30", "3.7.9-2+deb12u3"],
      ["libsystemd0", "252.30-1~deb12u2"],
    ],
  },
  ubuntu: {
    name: "24.04",
    packages: [
      ["libc6", "2.39-0ubuntu8.3"],
      ["openssl", "3.0.13-0ubuntu3.4"],
      ["libssl3t64", "3.0.13-0ubuntu3.4"],
      ["zlib1g", "1:1.3.dfsg-3.1ubuntu2.1"],
      ["libexpat1", "2.6.1-2ubuntu0.1"],
      ["libcurl4t64", "8.5.0-2ubuntu10.4"],
      ["perl-base", "5.38.2-3.2build2"],
      ["libgnutls30t64", "3.8.3-1.1ubuntu3.2"],
    ],
  },
};

const LANGUAGES = [
  {
    hint: /node|next|express|web/,
    target: "Node.js",
    type: "node-pkg",
    packages: [
      ["express", "4.19.2"],
      ["body-parser", "1.20.2"],
      ["path-to-regexp", "0.1.7"],
      ["cross-spawn", "7.0.3"],
      ["ws", "8.17.0"],
      ["braces", "3.0.2"],
    ],
  },
  {
    hint: /java|spring|tomcat|jvm/,
    target: "Java",
    type: "jar",
    packages: [
      ["com.fasterxml.jackson.core:jackson-databind", "2.13.4.1"],
      ["org.apache.tomcat.embed:tomcat-embed-core", "9.0.83"],
      ["org.yaml:snakeyaml", "1.33"],
      ["ch.qos.logback:logback-core", "1.2.11"],
      ["org.springframework:spring-web", "5.3.27"],
    ],
  },
  {
    hint: /go|api|worker/,
    target: "usr/local/bin/app",
    type: "gobinary",
    packages: [
      ["stdlib", "v1.22.4"],
      ["golang.org/x/net", "v0.23.0"],
      ["google.golang.org/grpc", "v1.62.1"],
      ["golang.org/x/crypto", "v0.21.0"],
    ],
  },
];

const WEAKNESSES = [
  "heap-based buffer overflow in the parser",
  "denial of service via crafted input",
  "use-after-free when closing a connection",
  "improper certificate validation",
  "integer overflow leading to an out-of-bounds write",
  "path traversal through crafted archive entries",
  "NULL pointer dereference on malformed data",
  "uncontrolled resource consumption",
  "information disclosure through a timing side channel",
];

function buildReport(reference) {
  const random = seededRandom(reference);
  const noFindings = /clean|distroless/.test(reference);
  const family =
    Object.keys(OPERATING_SYSTEMS).find((name) => reference.includes(name)) ??
    (reference.includes("distroless") ? "debian" : random.pick(Object.keys(OPERATING_SYSTEMS)));
  const os = OPERATING_SYSTEMS[family];
  const language = noFindings
    ? undefined
    : (LANGUAGES.find((candidate) => candidate.hint.test(reference)) ??
      (random.next() < 0.5 ? random.pick(LANGUAGES) : undefined));

  const results = [
    {
      Target: `${reference} (${family} ${os.name})`,
      Class: "os-pkgs",
      Type: family,
      packages: os.packages,
      findings: [],
    },
  ];
  if (language) {
    results.push({
      Target: language.target,
      Class: "lang-pkgs",
      Type: language.type,
      packages: language.packages,
      findings: [],
    });
  }

  if (!noFindings) {
    const counts = {
      CRITICAL: reference.includes("critical") ? 1 + random.int(2) : random.int(2),
      HIGH: random.int(5),
      MEDIUM: random.int(8),
      LOW: random.int(6),
      UNKNOWN: random.int(1),
    };
    const usedIds = new Set();
    for (const [severity, count] of Object.entries(counts)) {
      for (let n = 0; n < count; n += 1) {
        const result = random.pick(results);
        result.findings.push(makeVulnerability(random, result, severity, usedIds, family));
      }
    }
  }

  const digest = createHash("sha256").update(`digest:${reference}`).digest("hex");
  const diffIds = [1, 2, 3].map(
    (layer) => `sha256:${createHash("sha256").update(`${reference}#${layer}`).digest("hex")}`,
  );
  const repository = reference.split("@")[0].replace(/:[^/:]+$/, "");
  return {
    SchemaVersion: 2,
    Trivy: { Version: "0.74.0" },
    CreatedAt: new Date().toISOString(),
    ArtifactName: reference,
    ArtifactType: "container_image",
    Metadata: {
      Size: 20_000_000 + random.int(180_000_000),
      OS: { Family: family, Name: os.name },
      ImageID: `sha256:${createHash("sha256").update(`image:${reference}`).digest("hex")}`,
      DiffIDs: diffIds,
      RepoTags: reference.includes("@") ? [] : [reference],
      RepoDigests: [`${repository}@sha256:${digest}`],
      ImageConfig: { architecture: "amd64", os: "linux", rootfs: { type: "layers", diff_ids: diffIds } },
    },
    Results: results.map(({ Target, Class, Type, findings }) => {
      const result = { Target, Class, Type };
      // Like Trivy (omitempty), a result without findings has no Vulnerabilities key at all.
      if (findings.length > 0) {
        result.Vulnerabilities = findings.sort(
          (a, b) => a.PkgName.localeCompare(b.PkgName) || a.VulnerabilityID.localeCompare(b.VulnerabilityID),
        );
      }
      return result;
    }),
  };
}

function makeVulnerability(random, result, severity, usedIds, family) {
  const [pkgName, installedVersion] = random.pick(result.packages);
  const isLanguage = result.Class === "lang-pkgs";
  let id;
  do {
    id =
      isLanguage && random.next() < 0.3
        ? `GHSA-${[4, 4, 4].map((length) => random.chars("23456789cfghjmpqrvwx", length)).join("-")}`
        : `CVE-${2019 + random.int(6)}-${1000 + random.int(48_999)}`;
  } while (usedIds.has(id));
  usedIds.add(id);

  const fixed = random.next() >= 0.3;
  const vulnerability = {
    VulnerabilityID: id,
    PkgID: `${pkgName}@${installedVersion}`,
    PkgName: pkgName,
    InstalledVersion: installedVersion,
  };
  if (fixed) {
    const next = bumpVersion(installedVersion);
    vulnerability.FixedVersion =
      isLanguage && random.next() < 0.3 ? `${next}, ${bumpVersion(next, 1)}` : next;
  }
  vulnerability.Status = fixed ? "fixed" : "affected";
  vulnerability.SeveritySource = isLanguage ? "ghsa" : family;
  vulnerability.PrimaryURL = id.startsWith("GHSA")
    ? `https://github.com/advisories/${id}`
    : `https://avd.aquasec.com/nvd/${id.toLowerCase()}`;
  if (random.next() >= 0.1) vulnerability.Title = `${pkgName.split(":").at(-1)}: ${random.pick(WEAKNESSES)}`;
  vulnerability.Severity = severity;
  return vulnerability;
}

/** "3.3.2-r0" → "3.3.2-r1": raises the last number (or one further left) so the fix looks newer. */
function bumpVersion(version, fromEnd = 0) {
  const numbers = [...version.matchAll(/\d+/g)];
  const target = numbers[Math.max(0, numbers.length - 1 - fromEnd)];
  if (!target) return `${version}.1`;
  const start = target.index;
  return `${version.slice(0, start)}${Number(target[0]) + 1}${version.slice(start + target[0].length)}`;
}

/** A small deterministic generator (mulberry32) seeded from the image name. */
function seededRandom(text) {
  let state = createHash("sha256").update(text).digest().readUInt32LE(0);
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (max) => Math.floor(next() * (max + 1));
  return {
    next,
    int,
    pick: (items) => items[Math.floor(next() * items.length)],
    chars: (alphabet, length) =>
      Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join(""),
  };
}

// ---------------------------------------------------------------- output and run log

function logLine(level, message) {
  const timestamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  process.stderr.write(`${timestamp}\t${level}\t${message}\n`);
}

function fail(outcome, message) {
  logLine("FATAL", `Fatal error\t${message}`);
  finish(outcome, EXIT_FATAL);
}

function finish(outcome, exitCode) {
  logRun({ phase: "end", at: now(), outcome });
  process.exitCode = exitCode;
}

function logRun(entry) {
  const logPath = process.env.STANDIN_TRIVY_LOG;
  if (!logPath) return;
  appendFileSync(logPath, `${JSON.stringify({ ...entry, pid: process.pid, image })}\n`);
}

/** Milliseconds since the epoch with sub-millisecond precision, comparable across processes. */
function now() {
  return performance.timeOrigin + performance.now();
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------- run (last, once every constant above exists)

logRun({ phase: "start", at: startedAt, args: argv, envNames: Object.keys(process.env).sort() });
// The runner stops an overlong scan with SIGTERM; record it so run logs stay complete.
process.on("SIGTERM", () => {
  logRun({ phase: "end", at: now(), outcome: "terminated" });
  process.exit(143);
});

main().catch((error) => {
  process.stderr.write(`stand-in trivy failed: ${error?.stack ?? error}\n`);
  finish("stand-in-bug", EXIT_FATAL);
});
