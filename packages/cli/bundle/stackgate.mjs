#!/usr/bin/env node
// Built by packages/cli/src/bundle.ts; do not edit.

// src/cli.ts
import { parseArgs } from "node:util";

// src/deploy.ts
import { randomUUID } from "node:crypto";

// src/event-stream.ts
async function* eventPayloads(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (; ; ) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let boundary = buffer.indexOf("\n\n");
      while (boundary !== -1) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const data = block.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).replace(/^ /, "")).join("\n");
        if (data) {
          let payload;
          try {
            payload = JSON.parse(data);
          } catch {
            payload = void 0;
          }
          if (payload !== void 0) yield payload;
        }
        boundary = buffer.indexOf("\n\n");
      }
    }
  } finally {
    await reader.cancel().catch(() => void 0);
  }
}

// src/exit.ts
var EXIT = {
  success: 0,
  /** The deploy failed (Komodo's reason is printed), or a scan gate found findings. */
  failed: 1,
  /** A usage error, or Stackgate refused the key (401) or the action (403). */
  usage: 2,
  /** The run did not finish within --timeout (it goes on in Stackgate). */
  timeout: 3
};
var CliError = class extends Error {
  exitCode;
  constructor(message, exitCode2) {
    super(message);
    this.exitCode = exitCode2;
  }
};
function printable(text) {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");
}

// src/http.ts
var RETRIED_STATUSES = /* @__PURE__ */ new Set([429, 502, 503, 504]);
var defaultBackoffMs = (attempt) => Math.min(1e4, 1e3 * 2 ** attempt) * (0.8 + Math.random() * 0.4);
function isTransient(answer) {
  return RETRIED_STATUSES.has(answer.status) && answer.json?.success !== false;
}
function describeFailure(error) {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return "no answer in time";
  const cause = error.cause;
  return printable(cause?.code ?? cause?.message ?? error.message);
}
var sleep = (ms, signal) => new Promise((resolve) => {
  const aborted = () => {
    clearTimeout(timer);
    resolve();
  };
  const timer = setTimeout(() => {
    signal?.removeEventListener("abort", aborted);
    resolve();
  }, ms);
  signal?.addEventListener("abort", aborted, { once: true });
});
function createApi(connection, options = {}) {
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  const headersFor = (extra = {}) => ({
    "x-api-key": connection.apiKey,
    "user-agent": "stackgate-cli",
    ...extra
  });
  async function attempt(method, path, options2) {
    const headers = headersFor(options2.headers);
    if (options2.body !== void 0) headers["content-type"] = "application/json";
    const signals = [AbortSignal.timeout(options2.attemptTimeoutMs ?? 3e4)];
    if (options2.signal) signals.push(options2.signal);
    const response = await fetch(connection.baseUrl + path, {
      method,
      headers,
      body: options2.body === void 0 ? void 0 : JSON.stringify(options2.body),
      signal: AbortSignal.any(signals)
    });
    const text = await response.text();
    let json;
    try {
      json = text ? JSON.parse(text) : void 0;
    } catch {
      json = void 0;
    }
    return { status: response.status, headers: response.headers, text, json };
  }
  return {
    baseUrl: connection.baseUrl,
    async call(method, path, callOptions = {}) {
      const retryUntil = callOptions.retryUntil ?? 0;
      for (let tries = 0; ; tries++) {
        let answer;
        let reason;
        try {
          answer = await attempt(method, path, callOptions);
          if (!isTransient(answer)) return answer;
          reason = `${answer.status} ${answerMessage(answer)}`;
        } catch (error) {
          if (callOptions.signal?.aborted) throw error;
          reason = describeFailure(error);
        }
        const delay = backoffMs(tries);
        if (Date.now() + delay > retryUntil) {
          if (answer) return answer;
          throw new CliError(`Could not reach Stackgate at ${connection.baseUrl}: ${reason}`, EXIT.failed);
        }
        options.onRetry?.(reason, delay);
        await sleep(delay, callOptions.signal);
        if (callOptions.signal?.aborted) throw callOptions.signal.reason;
      }
    },
    open(path, signal) {
      return fetch(connection.baseUrl + path, {
        headers: headersFor({ accept: "text/event-stream" }),
        signal
      });
    }
  };
}
function answerMessage(answer) {
  if (typeof answer.json?.message === "string") return printable(answer.json.message);
  const text = answer.text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
  return printable(text.slice(0, 200)) || "(no body)";
}
function unexpectedAnswer(answer, what) {
  const message = answerMessage(answer);
  if (answer.status === 401)
    return new CliError(
      `Stackgate refused the API key (401): ${message}. Check STACKGATE_API_KEY / --api-key: the key may be mistyped, revoked or expired.`,
      EXIT.usage
    );
  if (answer.status === 403)
    return new CliError(`Stackgate refused to ${what} (403): ${message}`, EXIT.usage);
  if (answer.status === 400 || answer.status === 422)
    return new CliError(`Stackgate refused the request (${answer.status}): ${message}`, EXIT.usage);
  return new CliError(`Could not ${what}: Stackgate answered ${answer.status}: ${message}`, EXIT.failed);
}

// src/deploy.ts
var DEPLOY_ACTIONS = ["pull", "redeploy", "pull-redeploy"];
var START_RETRY_MS = 12e4;
async function deploy(options) {
  const { api, stack, action, progress } = options;
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  const base = { stack, action };
  const answer = await api.call("POST", "/api/v0/deploy", {
    body: { stack, action },
    headers: { prefer: "respond-async", "idempotency-key": randomUUID() },
    retryUntil: Math.min(deadline, now() + START_RETRY_MS)
  });
  if (answer.status === 200 && answer.json?.success === true)
    return { ...base, outcome: "succeeded", success: true, message: printable(String(answer.json.message)) };
  if (answer.json?.success === false)
    return { ...base, outcome: "failed", success: false, message: answerMessage(answer) };
  if (answer.status !== 202 || typeof answer.json?.run?.id !== "string")
    throw unexpectedAnswer(answer, `deploy '${stack}'`);
  const run = answer.json.run;
  progress.started(run.id);
  const finished = await followRun(api, run.id, {
    deadline,
    progress,
    pollIntervalMs: options.pollIntervalMs
  });
  const known = { ...base, runId: run.id, startedAt: run.startedAt };
  if (!finished)
    return {
      ...known,
      outcome: "timeout",
      success: false,
      message: `The run did not finish within the time limit; it goes on in Stackgate (run ${run.id})`
    };
  return {
    ...known,
    outcome: finished.success ? "succeeded" : "failed",
    success: finished.success === true,
    message: printable(finished.message ?? ""),
    finishedAt: finished.finishedAt
  };
}
function followRun(api, runId, {
  deadline,
  progress,
  pollIntervalMs = 2e3
}) {
  const stop = new AbortController();
  const { signal } = stop;
  let streamUp = false;
  let wakePoll;
  const pollNow = () => wakePoll?.();
  return new Promise((resolve, reject) => {
    const end = (outcome) => {
      if (signal.aborted) return;
      stop.abort();
      clearTimeout(deadlineTimer);
      pollNow();
      outcome();
    };
    const deadlineTimer = setTimeout(() => end(() => resolve(void 0)), Math.max(0, deadline - Date.now()));
    const inspect = (run) => {
      if (!isRun(run) || run.id !== runId) return;
      if (typeof run.success === "boolean") end(() => resolve(run));
      else if (typeof run.step === "string" && run.step) progress.step(run.step);
    };
    async function followStream() {
      for (let failures = 0; !signal.aborted; failures++) {
        let reason;
        try {
          const response = await api.open("/api/v0/deploy/events", signal);
          if (response.status === 403 || response.status === 404) {
            await response.body?.cancel();
            progress.note(
              `The event stream is not open to this key (${response.status}); following the run by polling`
            );
            return;
          }
          if (!response.ok || !response.body) {
            await response.body?.cancel();
            throw new Error(`it answered ${response.status}`);
          }
          for await (const event of eventPayloads(response.body)) {
            if (isObject(event) && event.type === "subscribed") {
              streamUp = true;
              failures = 0;
              pollNow();
              if (Array.isArray(event.running)) event.running.forEach(inspect);
            } else if (isObject(event)) {
              inspect(event.run);
            }
          }
          reason = "it closed";
        } catch (error) {
          if (signal.aborted) return;
          reason = describeFailure(error);
        }
        streamUp = false;
        if (signal.aborted) return;
        progress.note(`The event stream was interrupted (${reason}); reconnecting`);
        pollNow();
        await sleep(Math.min(defaultBackoffMs(failures), 5e3), signal);
      }
    }
    async function pollRun() {
      while (!signal.aborted) {
        const answer = await api.call("GET", `/api/v0/deploy/runs/${encodeURIComponent(runId)}`, {
          signal,
          attemptTimeoutMs: 15e3
        }).catch(() => void 0);
        if (signal.aborted) return;
        if (answer?.status === 200) inspect(answer.json?.run ?? answer.json);
        else if (answer?.status === 401 || answer?.status === 403)
          throw unexpectedAnswer(answer, `read the run ${runId}`);
        await new Promise((wake) => {
          const timer = setTimeout(wake, streamUp ? Math.max(pollIntervalMs, 1e4) : pollIntervalMs);
          wakePoll = () => {
            clearTimeout(timer);
            wake();
          };
        });
      }
    }
    const fail = (error) => end(() => reject(error));
    followStream().catch(fail);
    pollRun().catch(fail);
  });
}
var isObject = (value) => typeof value === "object" && value !== null;
var isRun = (value) => isObject(value) && typeof value.id === "string";
function parseAction(text) {
  if (DEPLOY_ACTIONS.includes(text)) return text;
  throw new CliError(
    `--action must be one of ${DEPLOY_ACTIONS.join(", ")} (got '${printable(text)}')`,
    EXIT.usage
  );
}

// src/duration.ts
var UNIT_MS = { ms: 1, s: 1e3, m: 6e4, h: 36e5 };
function parseDuration(text) {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1e3;
  if (!/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(trimmed)) return void 0;
  let total = 0;
  for (const [, amount, , unit] of trimmed.matchAll(/(\d+(\.\d+)?)(ms|h|m|s)/g))
    total += Number(amount) * UNIT_MS[unit];
  return total;
}
var LONGEST_WAIT_MS = 2 ** 31 - 1;
function durationOption(option, text, { examples, zero }) {
  const ms = parseDuration(text);
  if (ms === void 0 || ms === 0 && zero === "refused")
    throw new CliError(
      `--${option} must be a duration such as ${examples} (got '${printable(text)}')`,
      EXIT.usage
    );
  if (ms > LONGEST_WAIT_MS)
    throw new CliError(
      `--${option} can be at most 596h31m (2^31-1 ms, about 24.8 days: the longest the CLI can wait); got '${printable(text)}'`,
      EXIT.usage
    );
  return ms;
}
function formatElapsed(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1e3));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor(seconds % 3600 / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

// src/progress.ts
var STEP_LABELS = {
  pull: "pulling images",
  "take-down": "taking the stack down",
  deploy: "deploying"
};
var stepLabel = (step) => STEP_LABELS[step] ?? printable(step);
function createProgress({
  stream,
  what,
  now = Date.now,
  heartbeatMs = 3e4
}) {
  const startedAt = now();
  let currentStep;
  const elapsed = () => formatElapsed(now() - startedAt);
  const stepText = () => currentStep ? stepLabel(currentStep) : "waiting for Komodo";
  if (stream.isTTY) {
    const draw = () => stream.write(`\r\x1B[2K${what} \xB7 ${stepText()} \xB7 ${elapsed()}`);
    const timer = setInterval(draw, 1e3);
    const clear = () => stream.write("\r\x1B[2K");
    return {
      started: draw,
      step(step) {
        currentStep = step;
        draw();
      },
      note(text) {
        clear();
        stream.write(`${text}
`);
        draw();
      },
      stop() {
        clearInterval(timer);
        clear();
      }
    };
  }
  const line = (text) => stream.write(`[${elapsed()}] ${text}
`);
  const heartbeat = setInterval(() => line(`still running: ${stepText()}`), heartbeatMs);
  return {
    started: (runId) => line(`${what}: started (run ${runId})`),
    step(step) {
      if (step === currentStep) return;
      currentStep = step;
      line(`step: ${stepLabel(step)}`);
    },
    note: line,
    stop: () => clearInterval(heartbeat)
  };
}

// src/commands/context.ts
var printJson = (context, value) => context.stdout.write(`${JSON.stringify(value, null, 2)}
`);

// src/commands/deploy.ts
var DEFAULT_TIMEOUT = "15m";
function dashboardLinks(baseUrl, stack) {
  const name = encodeURIComponent(stack);
  return { stack: `${baseUrl}/stacks/${name}`, history: `${baseUrl}/history?stack=${name}` };
}
async function deployCommand(context, stack, flags) {
  if (!stack)
    throw new CliError("Which stack? Usage: stackgate deploy <stack> (see 'stackgate stacks')", EXIT.usage);
  const action = parseAction(typeof flags.action === "string" ? flags.action : "pull-redeploy");
  const timeoutText = typeof flags.timeout === "string" ? flags.timeout : DEFAULT_TIMEOUT;
  const timeoutMs = durationOption("timeout", timeoutText, { examples: "90s, 15m or 1h", zero: "refused" });
  const startedAt = Date.now();
  const progress = createProgress({
    stream: context.stderr,
    what: `${stack} \xB7 ${action}`
  });
  let result;
  try {
    result = await deploy({ api: context.api, stack, action, timeoutMs, progress });
  } finally {
    progress.stop();
  }
  const url = dashboardLinks(context.api.baseUrl, stack).stack;
  const exitCode2 = result.outcome === "succeeded" ? EXIT.success : result.outcome === "timeout" ? EXIT.timeout : EXIT.failed;
  if (context.json) {
    printJson(context, { ...result, url });
    return exitCode2;
  }
  const took = formatElapsed(Date.now() - startedAt);
  const run = result.runId ? ` (run ${result.runId})` : "";
  if (result.outcome === "succeeded")
    context.stdout.write(`Succeeded in ${took}: ${stack} \xB7 ${action}${run}
${result.message}
${url}
`);
  else if (result.outcome === "timeout")
    context.stderr.write(
      `Timed out after ${timeoutText}: ${stack} \xB7 ${action} is still running in Stackgate${run}.
Follow it at ${url}
`
    );
  else context.stderr.write(`Failed after ${took}: ${stack} \xB7 ${action}${run}
${result.message}
${url}
`);
  return exitCode2;
}

// src/table.ts
function table(header, rows) {
  const cells = [header, ...rows.map((row) => row.map(printable))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? "").length)));
  return cells.map(
    (row) => row.map((cell, column) => column === row.length - 1 ? cell : cell.padEnd(widths[column])).join("  ").trimEnd()
  ).join("\n");
}

// src/commands/history.ts
async function historyCommand(context, flags) {
  const query = new URLSearchParams();
  if (typeof flags.stack === "string") query.set("stack", flags.stack);
  const limit = typeof flags.limit === "string" ? Number(flags.limit) : 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new CliError("--limit must be a whole number from 1 to 100", EXIT.usage);
  query.set("limit", String(limit));
  const answer = await context.api.call("GET", `/api/v0/history?${query}`, {
    retryUntil: Date.now() + 3e4
  });
  if (answer.status !== 200) throw unexpectedAnswer(answer, "read the history");
  if (context.json) {
    printJson(context, answer.json);
    return 0;
  }
  const history = answer.json.history;
  if (history.length === 0) {
    context.stdout.write("No finished deploys yet.\n");
    return 0;
  }
  const rows = history.map((entry) => [
    entry.createdAt.replace("T", " ").replace(/\.\d+Z$/, "Z"),
    entry.stack,
    entry.action,
    entry.success ? "ok" : "FAILED",
    entry.actor,
    entry.message.split("\n")[0].slice(0, 120)
  ]);
  context.stdout.write(`${table(["WHEN (UTC)", "STACK", "ACTION", "RESULT", "BY", "MESSAGE"], rows)}
`);
  return 0;
}

// src/commands/scans.ts
var SEVERITIES = ["critical", "high", "medium", "low", "unknown"];
var DEFAULT_SCAN_WAIT = "2m";
var SCAN_POLL_MS = 2e3;
var GATES = { critical: ["critical"], high: ["critical", "high"] };
async function scansCommand(context, flags) {
  const failOn = typeof flags["fail-on"] === "string" ? flags["fail-on"] : void 0;
  if (failOn !== void 0 && !GATES[failOn])
    throw new CliError(`--fail-on must be critical or high (got '${printable(failOn)}')`, EXIT.usage);
  const stack = typeof flags.stack === "string" ? flags.stack : void 0;
  const image = typeof flags.image === "string" ? flags.image : void 0;
  const waitText = typeof flags["scan-wait"] === "string" ? flags["scan-wait"] : DEFAULT_SCAN_WAIT;
  const waitMs = durationOption("scan-wait", waitText, { examples: "0, 90s or 5m", zero: "allowed" });
  const select = async () => {
    let images2 = image ? [await readImage(context, image)] : await readImages(context);
    if (stack) {
      images2 = images2.filter((entry) => entry.stacks.includes(stack));
      if (images2.length === 0)
        throw new CliError(
          image ? `Stack '${stack}' does not use ${image}` : `No image of stack '${stack}' is known: check the name with 'stackgate stacks' (a scoped key sees only its stacks)`,
          EXIT.usage
        );
    }
    return images2;
  };
  let images = await select();
  const waitUntil = Date.now() + waitMs;
  const neverScanned = () => images.filter((entry) => entry.scannedAt === null && entry.status !== "failed");
  if (failOn && neverScanned().length > 0 && waitMs > 0) {
    context.stderr.write(
      `Waiting up to ${waitText} for the first scan of ${neverScanned().length} image(s)\u2026
`
    );
    while (neverScanned().length > 0 && Date.now() + SCAN_POLL_MS < waitUntil) {
      await sleep(SCAN_POLL_MS);
      images = await select();
    }
  }
  const counted = failOn ? GATES[failOn] : [];
  const findingsOf = (entry) => counted.reduce((sum, severity) => sum + entry.counts[severity], 0);
  const failing = images.filter((entry) => findingsOf(entry) > 0);
  if (context.json) {
    printJson(context, { images, failOn: failOn ?? null, failing: failing.map((entry) => entry.image) });
  } else {
    printImages(context, images);
    if (failOn) {
      for (const entry of images.filter((each) => each.scannedAt === null))
        context.stderr.write(`Not judged: ${entry.image} has no successful scan yet (${entry.status})
`);
      for (const entry of failing)
        context.stderr.write(
          `${entry.image}: ${counted.map((severity) => `${entry.counts[severity]} ${severity}`).join(", ")}
`
        );
      context.stdout.write(
        failing.length > 0 ? `Gate failed: ${failing.length} image(s) have findings at or above ${failOn}.
` : `Gate passed: no image has findings at or above ${failOn}.
`
      );
    }
  }
  return failing.length > 0 ? EXIT.failed : EXIT.success;
}
async function readImages(context) {
  const answer = await context.api.call("GET", "/api/v0/security/images", {
    retryUntil: Date.now() + 3e4
  });
  if (answer.status !== 200) throw unexpectedAnswer(answer, "read the image scans");
  const scanner = answer.json.scanner;
  if (scanner && scanner.available === false && !context.json)
    context.stderr.write(
      `Note: Stackgate cannot scan right now: ${printable(String(scanner.reason ?? ""))}
`
    );
  return answer.json.images;
}
async function readImage(context, image) {
  const answer = await context.api.call("GET", `/api/v0/security/image?${new URLSearchParams({ image })}`, {
    retryUntil: Date.now() + 3e4
  });
  if (answer.status === 404)
    throw new CliError(`No stack uses ${printable(image)} and no scan of it is stored`, EXIT.usage);
  if (answer.status !== 200) throw unexpectedAnswer(answer, `read the scan of ${image}`);
  return answer.json;
}
function printImages(context, images) {
  const rows = images.map((entry) => [
    entry.image,
    entry.scannedAt ? entry.status : `${entry.status} (not scanned yet)`,
    ...SEVERITIES.slice(0, 4).map((severity) => String(entry.counts[severity])),
    entry.stacks.join(", ")
  ]);
  context.stdout.write(
    `${table(["IMAGE", "STATUS", "CRITICAL", "HIGH", "MEDIUM", "LOW", "STACKS"], rows)}
`
  );
  const [only] = images;
  if (images.length === 1 && only.vulnerabilities?.length) {
    const shown = only.vulnerabilities.slice(0, 50);
    context.stdout.write(
      `
${table(
        ["SEVERITY", "ID", "PACKAGE", "INSTALLED", "FIXED IN"],
        shown.map((finding) => [
          finding.severity,
          finding.id,
          finding.package,
          finding.installedVersion,
          finding.fixedVersion ?? "-"
        ])
      )}
`
    );
    if (only.vulnerabilities.length > shown.length)
      context.stdout.write(`\u2026 and ${only.vulnerabilities.length - shown.length} more (--json lists all)
`);
  }
}

// src/commands/stacks.ts
async function stacksCommand(context) {
  const answer = await context.api.call("GET", "/api/v0/stacks", { retryUntil: Date.now() + 3e4 });
  if (answer.status !== 200) throw unexpectedAnswer(answer, "list the stacks");
  if (context.json) {
    printJson(context, answer.json);
    return 0;
  }
  const stacks = answer.json.stacks;
  if (stacks.length === 0) {
    context.stdout.write("No stacks (none in Komodo, or none this key may see).\n");
    return 0;
  }
  const rows = stacks.map((stack) => [
    stack.name,
    stack.state,
    stack.status ?? "",
    stack.info.services.map((service) => service.image + (service.update_available ? " *" : "")).join(", ")
  ]);
  context.stdout.write(`${table(["STACK", "STATE", "STATUS", "IMAGES (* update available)"], rows)}
`);
  return 0;
}

// src/config.ts
function resolveConnection(flags, env) {
  const url = (flags.url ?? env.STACKGATE_URL ?? "").trim();
  const apiKey = (flags["api-key"] ?? env.STACKGATE_API_KEY ?? "").trim();
  if (!url)
    throw new CliError("Stackgate's address is missing: set STACKGATE_URL or pass --url.", EXIT.usage);
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`STACKGATE_URL / --url is not a URL: ${url}`, EXIT.usage);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new CliError("STACKGATE_URL / --url must start with http:// or https://", EXIT.usage);
  if (parsed.username || parsed.password)
    throw new CliError("STACKGATE_URL / --url must not hold a user or password; use the API key", EXIT.usage);
  if (!apiKey)
    throw new CliError(
      "The API key is missing: set STACKGATE_API_KEY (or pass --api-key). Create one in Stackgate under Settings \u2192 API keys.",
      EXIT.usage
    );
  if (/[\s\u0000-\u001f]/.test(apiKey))
    throw new CliError("The API key holds spaces or control characters; copy it again", EXIT.usage);
  return { baseUrl: `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`, apiKey };
}

// src/help.ts
var CONNECTION = `Connection (every command):
  --url URL          Stackgate's address, e.g. https://stackgate.example.com
                     (default: $STACKGATE_URL)
  --api-key KEY      An API key made in Stackgate under Settings \u2192 API keys
                     (default: $STACKGATE_API_KEY; prefer the variable: flags show in process lists)
  --json             Print one JSON document on stdout instead of text
  -h, --help         This help`;
var EXIT_CODES = `Exit codes:
  0  success
  1  the deploy failed (Komodo's reason is printed), a scan gate found findings,
     or Stackgate could not be reached
  2  usage error, or Stackgate refused the key (401) or the action (403)
  3  the deploy did not finish within --timeout (it goes on in Stackgate)`;
var HELP = {
  main: `stackgate \u2014 deploy Komodo stacks through Stackgate from a terminal or a CI pipeline

Usage:
  stackgate deploy <stack> [--action pull-redeploy] [--timeout 15m] [--json]
  stackgate stacks [--json]
  stackgate history [--stack S] [--limit N] [--json]
  stackgate scans [--stack S] [--image I] [--fail-on critical|high] [--scan-wait 2m] [--json]
  stackgate <command> --help

Stackgate sits in front of a Komodo Core: it deploys the stacks Komodo manages, records every
deploy in its history and scans the stacks' images. Ask its admin for its address and create an
API key under Settings \u2192 API keys, then:

  export STACKGATE_URL=https://stackgate.example.com
  export STACKGATE_API_KEY=sg_...        # a secret: keep it in your CI's secret store
  stackgate deploy web                   # pull the images of stack 'web' and redeploy it

${CONNECTION}

${EXIT_CODES}

Docs: docs/ci.md in the Stackgate repository (GitHub Action, GitLab CI template, curl).`,
  deploy: `stackgate deploy <stack> \u2014 run pull, redeploy or pull-redeploy on a stack and wait for the outcome

Usage:
  stackgate deploy <stack> [--action pull-redeploy] [--timeout 15m] [--json]

  <stack>            The stack's name as Komodo and Stackgate show it (see 'stackgate stacks')
  --action ACTION    pull           pull the stack's images; nothing restarts
                     redeploy       take the stack down, then deploy it again
                     pull-redeploy  pull, then redeploy (default)
  --timeout T        How long to wait for the outcome: 90s, 15m, 1h (default 15m). On a
                     timeout the deploy goes on in Stackgate; the command exits 3.

How it works: the deploy is started at once (Prefer: respond-async) under an idempotency key
made for this invocation, so retrying after a lost answer (a proxy's 502/503/504, a dropped
connection; for up to 2 minutes, with backoff) never deploys twice. It then follows the run on
Stackgate's live event stream, reconnecting when a proxy cuts it, and reads the run now and
then, so a proxy's read time limit (nginx's 60 s, Cloudflare's 100 s) never ends the wait.
Progress goes to stderr: one redrawn line on a terminal (current step, elapsed time), plain
timestamped lines in CI logs. The outcome goes to stdout; with --json, one object:
  {"outcome":"succeeded|failed|timeout|error","success":true,"message":"...","stack":"web",
   "action":"pull-redeploy","runId":"...","startedAt":"...","finishedAt":"...","url":"..."}

The API key needs the right to deploy that stack (a scoped key: that stack and action) and,
to follow the run, to read its history and events.

${CONNECTION}

${EXIT_CODES}`,
  stacks: `stackgate stacks \u2014 list the stacks, live from Komodo

Usage:
  stackgate stacks [--json]

Prints each stack's name, state, status and images ('*' marks an image with an update
available). A scoped API key sees only its stacks. --json prints {"stacks": [...]} as the API
answers it (GET /api/v0/stacks).

${CONNECTION}`,
  history: `stackgate history \u2014 the latest finished deploys, newest first

Usage:
  stackgate history [--stack S] [--limit N] [--json]

  --stack S          Only the deploys of this stack
  --limit N          How many, 1 to 100 (default 20)

Prints when, stack, action, outcome, who (a person, or 'API Key: <name>') and the message.
--json prints {"history": [...], "nextCursor": ...} as the API answers it (GET /api/v0/history).

${CONNECTION}`,
  scans: `stackgate scans \u2014 the latest vulnerability scan of the stacks' images, and a gate on them

Usage:
  stackgate scans [--stack S] [--image I] [--fail-on critical|high] [--scan-wait 2m] [--json]

  --stack S          Only the images stack S uses (as Komodo reports them now)
  --image I          Only this image reference, e.g. ghcr.io/acme/web:1.4, with its findings
  --fail-on LEVEL    Exit 1 when a listed image has findings of LEVEL or worse:
                     critical: any critical finding; high: any critical or high finding.
                     Use it as a gate before 'stackgate deploy':
                       stackgate scans --stack web --fail-on critical && stackgate deploy web
  --scan-wait T      With --fail-on: how long to wait for the first scan of an image never
                     scanned yet (e.g. a new tag; listing it queues its scan). Default 2m; 0: no wait.

Without --stack and --image every image the key may see is listed (a scoped key: its
stacks' images). The gate reads the latest successful scan of each image, which Stackgate
makes in the background (Trivy). An image still without a successful scan after --scan-wait
is named ("Not judged") and does not fail the gate.
--json prints {"images": [...], "failOn": ..., "failing": [...]}.

${CONNECTION}

Exit codes:
  0  no listed image has findings at or above --fail-on (or no --fail-on)
  1  some image does (each is named), or Stackgate could not be reached
  2  usage error, unknown stack or image, or Stackgate refused the key (401/403)`
};

// src/cli.ts
var CONNECTION_FLAGS = {
  url: { type: "string" },
  "api-key": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" }
};
var COMMAND_FLAGS = {
  deploy: { action: { type: "string" }, timeout: { type: "string" } },
  stacks: {},
  history: { stack: { type: "string" }, limit: { type: "string" } },
  scans: {
    stack: { type: "string" },
    image: { type: "string" },
    "fail-on": { type: "string" },
    "scan-wait": { type: "string" }
  }
};
var isCommand = (name) => !!name && Object.hasOwn(COMMAND_FLAGS, name);
async function runCli(argv, io) {
  const [first, ...rest] = argv;
  let json = argv.includes("--json");
  try {
    if (first === void 0 || first === "--help" || first === "-h" || first === "help") {
      const topic = first === "help" && isCommand(rest[0]) ? rest[0] : "main";
      io.stdout.write(`${HELP[topic]}
`);
      return first === void 0 ? EXIT.usage : EXIT.success;
    }
    if (first === "--version") {
      io.stdout.write(`${VERSION}
`);
      return EXIT.success;
    }
    if (!isCommand(first))
      throw new CliError(
        `Unknown command '${printable(first)}'. Commands: deploy, stacks, history, scans ('stackgate --help').`,
        EXIT.usage
      );
    const { values, positionals } = parseCommandLine(first, rest);
    json = values.json === true;
    if (values.help) {
      io.stdout.write(`${HELP[first]}
`);
      return EXIT.success;
    }
    const expected = first === "deploy" ? 1 : 0;
    if (positionals.length > expected)
      throw new CliError(
        `Unexpected argument '${printable(positionals[expected])}' ('stackgate ${first} --help')`,
        EXIT.usage
      );
    const connection = resolveConnection(values, io.env);
    const context = {
      api: createApi(connection, {
        onRetry: (reason, delayMs) => io.stderr.write(
          `Stackgate did not answer (${reason}); retrying in ${Math.round(delayMs / 1e3)} s
`
        )
      }),
      stdout: io.stdout,
      stderr: io.stderr,
      json
    };
    switch (first) {
      case "deploy":
        return await deployCommand(context, positionals[0], values);
      case "stacks":
        return await stacksCommand(context);
      case "history":
        return await historyCommand(context, values);
      case "scans":
        return await scansCommand(context, values);
    }
  } catch (error) {
    const exitCode2 = error instanceof CliError ? error.exitCode : EXIT.failed;
    const message = error instanceof Error ? error.message : String(error);
    if (json)
      io.stdout.write(
        `${JSON.stringify({ outcome: "error", success: false, message, exitCode: exitCode2 }, null, 2)}
`
      );
    io.stderr.write(`stackgate: ${message}
`);
    return exitCode2;
  }
}
function parseCommandLine(command, args) {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...CONNECTION_FLAGS, ...COMMAND_FLAGS[command] },
      allowPositionals: true,
      strict: true
    });
    return { values, positionals };
  } catch (error) {
    throw new CliError(`${error.message} ('stackgate ${command} --help')`, EXIT.usage);
  }
}
var VERSION = true ? "0.1.0" : "development";

// src/main.ts
var exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr
});
process.exitCode = exitCode;
setTimeout(() => process.exit(exitCode), 2e3).unref();
