#!/usr/bin/env node
// Built by packages/cli/src/bundle.ts; do not edit.

// src/cli.ts
import { parseArgs } from "node:util";

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
  /** The deploy failed (Komodo's reason is printed), did not stay up (unstable), or a scan gate found findings. */
  failed: 1,
  /** A usage error, or Stackgate refused the key (401) or the action (403). */
  usage: 2,
  /** The run did not finish within --timeout (it goes on in Stackgate). */
  timeout: 3,
  /** Stopped by SIGINT (Ctrl-C) or SIGTERM while following a run (it goes on in Stackgate): 128 + the signal. */
  SIGINT: 130,
  SIGTERM: 143
};
var outcomeOf = (exitCode2) => exitCode2 === EXIT.success ? "succeeded" : exitCode2 === EXIT.usage ? "refused" : exitCode2 === EXIT.timeout ? "timeout" : exitCode2 === EXIT.SIGINT || exitCode2 === EXIT.SIGTERM ? "detached" : "failed";
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
function failureKind(error) {
  const cause = error?.cause;
  const code = typeof cause?.code === "string" ? cause.code : "";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return "dns";
  if (code === "ECONNREFUSED") return "refused";
  if (/^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/.test(code) || /certificate|SSL routines/i.test(typeof cause?.message === "string" ? cause.message : ""))
    return "tls";
  return "other";
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
var isWebPage = (answer) => /text\/html/i.test(answer.headers.get("content-type") ?? "") || /^\s*</.test(answer.text);
function createApi(connection, options = {}) {
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  const headersFor = (extra = {}) => ({
    "x-api-key": connection.apiKey,
    "user-agent": "stackgate-cli",
    ...extra
  });
  const address = `${connection.urlSource} (${connection.baseUrl})`;
  function permanentFailure(error, refusedIsPermanent) {
    const reason = describeFailure(error);
    const host = new URL(connection.baseUrl).hostname;
    switch (failureKind(error)) {
      case "dns":
        return new CliError(
          `Could not reach Stackgate: the host '${host}' in ${address} does not resolve (${reason}). Check its spelling.`,
          EXIT.failed
        );
      case "tls":
        return new CliError(
          `Could not reach Stackgate: TLS failed with ${address} (${reason}). Check http:// or https:// and the port, and that the server's certificate is valid for '${host}'.`,
          EXIT.failed
        );
      case "refused":
        return refusedIsPermanent ? new CliError(
          `Could not reach Stackgate: nothing accepts connections at ${address} (${reason}). Check the port, and that Stackgate is running.`,
          EXIT.failed
        ) : void 0;
      default:
        return void 0;
    }
  }
  function wrongAddress(answer, method, path) {
    const stackgates404 = answer.json?.code === "NOT_FOUND" && !/^No endpoint /.test(String(answer.json?.message));
    const notTheApi = isWebPage(answer) || answer.status === 404 && !stackgates404;
    if (!notTheApi || RETRIED_STATUSES.has(answer.status)) return void 0;
    const what = isWebPage(answer) ? "a web page" : "a 404";
    return new CliError(
      `${address} does not look like Stackgate's address: ${method} ${path.split("?")[0]} answered ${what} (${statusLine(answer).slice(0, 100)}), not Stackgate's API. Set it to the address the dashboard is served at, e.g. https://stackgate.example.com (an older Stackgate may lack this endpoint).`,
      EXIT.failed
    );
  }
  async function attempt(method, path, options2, attempts) {
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
    return { status: response.status, headers: response.headers, text, json, attempts };
  }
  return {
    baseUrl: connection.baseUrl,
    async call(method, path, callOptions = {}) {
      const retryUntil = callOptions.retryUntil ?? 0;
      let reached = false;
      for (let tries = 0; ; tries++) {
        let answer;
        let reason;
        try {
          answer = await attempt(method, path, callOptions, tries + 1);
          reached = true;
          const wrong = wrongAddress(answer, method, path);
          if (wrong) throw wrong;
          if (!isTransient(answer)) return answer;
          reason = statusLine(answer);
        } catch (error) {
          if (error instanceof CliError || callOptions.signal?.aborted) throw error;
          const permanent = permanentFailure(error, callOptions.beforeRun === true && !reached);
          if (permanent) throw permanent;
          reached = true;
          reason = describeFailure(error);
        }
        const delay = backoffMs(tries);
        if (Date.now() + delay > retryUntil) {
          if (answer) return answer;
          throw new CliError(`Could not reach Stackgate at ${address}: ${reason}`, EXIT.failed);
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
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(answer.text)?.[1]?.replace(/\s+/g, " ").trim();
  if (title) return printable(title.slice(0, 200));
  const text = answer.text.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
  return printable(text.slice(0, 200)) || "(no body)";
}
function statusLine(answer) {
  const message = answerMessage(answer);
  return message === String(answer.status) || message.startsWith(`${answer.status} `) ? message : `${answer.status}: ${message}`;
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
  return new CliError(`Could not ${what}: Stackgate answered ${statusLine(answer)}`, EXIT.failed);
}

// src/nearest.ts
function distance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)
      );
    previous = current;
  }
  return previous[b.length];
}
function nearestNames(typed, names) {
  if (!names) return void 0;
  const wanted = typed.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  return names.map((name) => {
    const lower = name.toLowerCase();
    const close = lower.includes(wanted) || lower.length >= 3 && wanted.includes(lower);
    return { name, score: close ? 0 : distance(wanted, lower) };
  }).filter(({ score }) => score <= limit).sort((a, b) => a.score - b.score || a.name.localeCompare(b.name)).slice(0, 3).map(({ name }) => name);
}

// src/stages.ts
var stageOutput = (text) => printable(
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
  text.replace(/<\/?span[^>]*>/g, "").replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "")
).trimEnd();
function stageLines(stage, { quiet = false } = {}) {
  const lines = [`stage ${printable(stage.stage)} (${stage.success ? "ok" : "failed"})`];
  if (quiet) return lines;
  if (stage.command) lines.push(`  $ ${printable(stage.command)}`);
  for (const text of [stage.stdout, stage.stderr]) {
    const output = stageOutput(text);
    if (output) lines.push(...output.split("\n").map((line) => `    ${line}`));
  }
  return lines;
}
var failedStage = (stages) => stages.filter((stage) => !stage.success).at(-1);
var isStage = (value) => typeof value === "object" && value !== null && typeof value.stage === "string" && typeof value.success === "boolean";
var asStage = (value) => ({
  stage: value.stage,
  command: typeof value.command === "string" ? value.command : null,
  stdout: typeof value.stdout === "string" ? value.stdout : "",
  stderr: typeof value.stderr === "string" ? value.stderr : "",
  success: value.success
});
function createStageLog(api, runId, print, signal) {
  const stages = [];
  let endpoint;
  let running;
  let again = false;
  const take = (stage) => {
    stages.push(stage);
    print(stage);
  };
  async function readOnce() {
    try {
      const answer = await api.call("GET", `/api/v0/deploy/runs/${encodeURIComponent(runId)}/logs`, {
        signal,
        attemptTimeoutMs: 1e4
      });
      if (answer.status === 200 && Array.isArray(answer.json?.stages)) {
        endpoint = true;
        const kept = answer.json.stages.filter(isStage).map(asStage);
        kept.slice(stages.length).forEach(take);
      } else if (answer.status === 403 || answer.status === 404) endpoint = false;
    } catch (error) {
      if (error instanceof CliError) endpoint = false;
    }
  }
  function sync() {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        if (endpoint !== false && !signal?.aborted) await readOnce();
      } while (again);
    })().finally(() => {
      running = void 0;
    });
    return running;
  }
  return {
    async heard(told) {
      const fresh = Array.isArray(told) ? told.filter(isStage).map(asStage) : [];
      if (endpoint !== false) await sync();
      if (endpoint === false) fresh.forEach(take);
    },
    sync,
    stages
  };
}

// src/deploy.ts
var DEPLOY_ACTIONS = ["pull", "redeploy", "pull-redeploy"];
var stopSignalOf = (stop2) => stop2?.reason === "SIGTERM" ? "SIGTERM" : "SIGINT";
async function deploy(options) {
  const { api, stack, action, progress, stop: stop2 } = options;
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  const base = { stack, action };
  const stopped = (message, more = {}) => ({
    ...base,
    ...more,
    outcome: "detached",
    success: false,
    message,
    stoppedBy: stopSignalOf(stop2)
  });
  try {
    await preflight(api, stack, action, { deadline, stop: stop2 });
  } catch (error) {
    if (stop2?.aborted) return stopped("Stopped before anything was deployed");
    throw error;
  }
  let answer;
  try {
    answer = await api.call("POST", "/api/v0/deploy", {
      body: {
        stack,
        action,
        ...options.settleSeconds === void 0 ? {} : { settleSeconds: options.settleSeconds }
      },
      headers: { prefer: "respond-async", "idempotency-key": options.idempotencyKey },
      retryUntil: deadline,
      beforeRun: true,
      signal: stop2
    });
  } catch (error) {
    if (stop2?.aborted)
      return stopped(
        "Stopped before Stackgate answered: the deploy may have started; its history shows it, and the same command (same idempotency key) attaches to it"
      );
    throw error;
  }
  if (answer.status === 200 && answer.json?.success === true)
    return { ...base, outcome: "succeeded", success: true, message: printable(String(answer.json.message)) };
  if (answer.json?.success === false)
    return { ...base, outcome: "failed", success: false, message: answerMessage(answer) };
  if (answer.status !== 202 || typeof answer.json?.run?.id !== "string")
    throw unexpectedAnswer(answer, `deploy '${stack}'`);
  const run = answer.json.run;
  const attached = answer.json.replayed === true && answer.attempts === 1;
  options.onRun?.(run.id);
  const known = { ...base, runId: run.id, startedAt: run.startedAt, ...attached ? { attached } : {} };
  if (options.detach)
    return { ...known, outcome: "detached", success: false, message: `Run ${run.id} goes on in Stackgate` };
  progress.started(
    run.id,
    attached ? `already started at ${run.startedAt} by an earlier attempt of this job (the same idempotency key); following it` : void 0
  );
  return resultOf(known, await followRun(api, run.id, { ...options, deadline }), stop2);
}
async function waitForRun(runId, options) {
  const { api, stop: stop2 } = options;
  const deadline = (options.now ?? Date.now)() + options.timeoutMs;
  const path = `/api/v0/deploy/runs/${encodeURIComponent(runId)}`;
  let answer;
  try {
    answer = await api.call("GET", path, { retryUntil: deadline, beforeRun: true, signal: stop2 });
  } catch (error) {
    if (stop2?.aborted) throw new CliError("Stopped before the run was read", EXIT[stopSignalOf(stop2)]);
    throw error;
  }
  if (answer.status === 404)
    throw new CliError(
      `No run '${printable(runId)}' (or not one this API key may follow: a key follows the runs it started, or those of the history it may read)`,
      EXIT.usage
    );
  if (answer.status !== 200 || typeof answer.json?.run?.id !== "string")
    throw unexpectedAnswer(answer, `read the run ${runId}`);
  const run = answer.json.run;
  const known = {
    stack: String(run.stack),
    action: run.action,
    runId: run.id,
    startedAt: run.startedAt
  };
  if (typeof run.success === "boolean" && !settling(run, options.waitStable)) {
    const log = createStageLog(api, run.id, (stage) => options.progress.stage(stage), stop2);
    await log.sync();
    return resultOf(known, { end: { kind: "finished", run }, stages: log.stages }, stop2);
  }
  options.progress.started(run.id, `following the run started at ${run.startedAt}`);
  if (run.step) options.progress.step(run.step);
  return resultOf(known, await followRun(api, run.id, { ...options, deadline }), stop2);
}
var settling = (run, waitStable) => waitStable === true && run.success === true && run.settle?.state === "watching";
function resultOf(known, { end, stages }, stop2) {
  if (end.kind === "timeout") {
    const until = end.finished?.settle?.until;
    return {
      ...known,
      outcome: "timeout",
      success: false,
      ...end.finished?.settle ? { settle: end.finished.settle, finishedAt: end.finished.finishedAt } : {},
      message: end.finished ? `The deploy succeeded, but whether it stays up was not known within the time limit: Stackgate watches it until ${until} (run ${known.runId})` : `The run did not finish within the time limit; it goes on in Stackgate (run ${known.runId})`
    };
  }
  if (end.kind === "stopped")
    return {
      ...known,
      outcome: "detached",
      success: false,
      message: `Stopped following run ${known.runId}; it goes on in Stackgate`,
      stoppedBy: stopSignalOf(stop2)
    };
  const { run } = end;
  const settle = run.settle ?? void 0;
  const unstable = run.success === true && settle?.state === "unstable";
  const failed = run.success === true ? void 0 : failedStage(stages);
  return {
    ...known,
    outcome: unstable ? "unstable" : run.success ? "succeeded" : "failed",
    success: run.success === true && !unstable,
    message: unstable ? `Deployed, then unstable: ${printable(settle?.reason ?? "its services did not stay up")}` : printable(run.message ?? ""),
    finishedAt: run.finishedAt,
    ...settle ? { settle } : {},
    ...failed ? { failedStage: failed } : {}
  };
}
async function preflight(api, stack, action, { deadline, stop: stop2 }) {
  const query = new URLSearchParams({ stack, action });
  const answer = await api.call("GET", `/api/v0/deploy/check?${query}`, {
    retryUntil: deadline,
    beforeRun: true,
    signal: stop2
  });
  if (answer.status === 200 && answer.json?.exists === true) return;
  if (answer.status === 200 && answer.json?.exists === false) {
    const near = await stackNames(api, stop2).then((names) => nearestNames(stack, names));
    const hint = near === void 0 ? " (check the name on Stackgate's Stacks page)" : near.length > 0 ? `. Did you mean ${near.join(", ")}? ('stackgate stacks' lists them)` : " ('stackgate stacks' lists the stacks)";
    throw new CliError(`no stack named ${printable(stack)}; nothing was deployed${hint}`, EXIT.usage);
  }
  if (answer.json?.success === false)
    throw new CliError(`Stackgate cannot deploy now: ${answerMessage(answer)}`, EXIT.failed);
  throw unexpectedAnswer(answer, `deploy '${stack}'`);
}
async function stackNames(api, stop2) {
  const answer = await api.call("GET", "/api/v0/stacks", { signal: stop2, attemptTimeoutMs: 1e4 }).catch(() => void 0);
  if (answer?.status !== 200 || !Array.isArray(answer.json?.stacks)) return void 0;
  return answer.json.stacks.map((entry) => String(entry.name));
}
async function followRun(api, runId, {
  deadline,
  progress,
  stop: stop2,
  pollIntervalMs = 2e3,
  waitStable = false
}) {
  const ending = new AbortController();
  const { signal } = ending;
  const stageLog = createStageLog(api, runId, (stage) => progress.stage(stage), signal);
  let streamUp = false;
  let wakePoll;
  const pollNow = () => wakePoll?.();
  let succeeded;
  const end = await new Promise((resolve, reject) => {
    const end2 = (outcome) => {
      if (signal.aborted) return;
      ending.abort();
      clearTimeout(deadlineTimer);
      stop2?.removeEventListener("abort", onStop);
      pollNow();
      outcome();
    };
    const deadlineTimer = setTimeout(
      () => end2(() => resolve({ kind: "timeout", finished: succeeded })),
      Math.max(0, deadline - Date.now())
    );
    const onStop = () => end2(() => resolve({ kind: "stopped" }));
    if (stop2?.aborted) onStop();
    stop2?.addEventListener("abort", onStop, { once: true });
    let printed = Promise.resolve();
    const inOrder = (print) => {
      printed = printed.then(() => signal.aborted ? void 0 : print()).then(
        () => void 0,
        () => void 0
      );
    };
    let finishing = false;
    const inspect = (run) => {
      if (!isRun(run) || run.id !== runId) return;
      if (typeof run.success === "boolean") {
        if (settling(run, waitStable)) {
          if (succeeded) return;
          succeeded = run;
          inOrder(() => stageLog.sync());
          inOrder(() => progress.settling(String(run.settle?.until)));
        } else if (!finishing) {
          finishing = true;
          inOrder(() => stageLog.sync());
          inOrder(() => end2(() => resolve({ kind: "finished", run })));
        }
      } else if (typeof run.step === "string" && run.step) {
        const { step } = run;
        inOrder(() => progress.step(step));
      }
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
            if (!isObject(event)) continue;
            if (event.type === "subscribed") {
              streamUp = true;
              failures = 0;
              pollNow();
              void stageLog.sync();
              if (Array.isArray(event.running)) event.running.forEach(inspect);
            } else if (event.type === "log") {
              if (event.runId === runId) inOrder(() => stageLog.heard(event.stages));
            } else inspect(event.run);
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
        if (answer?.status === 200) {
          if (!streamUp) void stageLog.sync();
          inspect(answer.json?.run ?? answer.json);
        } else if (answer?.status === 401 || answer?.status === 403)
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
    const fail = (error) => end2(() => reject(error));
    followStream().catch(fail);
    pollRun().catch(fail);
  });
  return { end, stages: stageLog.stages };
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

// src/idempotency.ts
import { createHash, randomUUID } from "node:crypto";
var VALID = /^[\x21-\x7e]{1,255}$/;
var digest = (parts) => createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
function idempotencyKeyOf({
  flag,
  newRun,
  env,
  stack,
  action
}) {
  if (flag !== void 0 && newRun)
    throw new CliError("--new-run and --idempotency-key contradict each other: give one", EXIT.usage);
  if (newRun) return { key: `stackgate-${randomUUID()}`, source: "invocation" };
  const given = flag !== void 0 ? { key: flag, source: "--idempotency-key" } : env.STACKGATE_IDEMPOTENCY_KEY ? { key: env.STACKGATE_IDEMPOTENCY_KEY, source: "STACKGATE_IDEMPOTENCY_KEY" } : void 0;
  if (given) {
    if (!VALID.test(given.key))
      throw new CliError(
        `${given.source} must be 1 to 255 visible ASCII characters, without spaces (got '${printable(given.key).slice(0, 60)}')`,
        EXIT.usage
      );
    return given;
  }
  const { GITHUB_ACTIONS, GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_JOB } = env;
  if (GITHUB_ACTIONS === "true" && GITHUB_REPOSITORY && GITHUB_RUN_ID && GITHUB_JOB)
    return {
      key: `github-${digest([GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_JOB, stack, action])}`,
      source: "github"
    };
  const { GITLAB_CI, CI_PROJECT_PATH, CI_PIPELINE_ID, CI_JOB_NAME } = env;
  if (GITLAB_CI === "true" && CI_PROJECT_PATH && CI_PIPELINE_ID && CI_JOB_NAME)
    return {
      key: `gitlab-${digest([CI_PROJECT_PATH, CI_PIPELINE_ID, CI_JOB_NAME, stack, action])}`,
      source: "gitlab"
    };
  return { key: `stackgate-${randomUUID()}`, source: "invocation" };
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
  plain = false,
  quiet = false,
  now = Date.now,
  heartbeatMs = 3e4
}) {
  const startedAt = now();
  let currentStep;
  const elapsed = () => formatElapsed(now() - startedAt);
  const stepText = () => currentStep ? stepLabel(currentStep) : "waiting for Komodo";
  const settleText = (until) => `deployed; watching whether it stays up until ${clockOf(until)}`;
  let timer;
  if (stream.isTTY && !plain) {
    const draw = () => {
      if (timer) stream.write(`\r\x1B[2K${what} \xB7 ${stepText()} \xB7 ${elapsed()}`);
    };
    const clear = () => {
      if (timer) stream.write("\r\x1B[2K");
    };
    return {
      started(runId, how) {
        if (how) stream.write(`${what}: ${how} (run ${runId})
`);
        timer ??= setInterval(draw, 1e3);
        draw();
      },
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
      stage(stage) {
        clear();
        stream.write(`${stageLines(stage, { quiet }).join("\n")}
`);
        draw();
      },
      settling(until) {
        currentStep = settleText(until);
        draw();
      },
      stop() {
        clear();
        clearInterval(timer);
        timer = void 0;
      }
    };
  }
  const line = (text) => stream.write(`[${elapsed()}] ${text}
`);
  return {
    started(runId, how = "started") {
      line(`${what}: ${how} (run ${runId})`);
      timer ??= setInterval(() => line(`still running: ${stepText()}`), heartbeatMs);
    },
    step(step) {
      if (step === currentStep) return;
      currentStep = step;
      line(`step: ${stepLabel(step)}`);
    },
    note: line,
    stage: (stage) => line(stageLines(stage, { quiet }).join("\n")),
    settling(until) {
      currentStep = settleText(until);
      line(currentStep);
    },
    stop: () => clearInterval(timer)
  };
}
var clockOf = (iso) => `${/T(\d\d:\d\d:\d\d)/.exec(iso)?.[1] ?? printable(iso)} UTC`;

// src/commands/context.ts
var printJson = (context, value) => context.stdout.write(`${JSON.stringify(value, null, 2)}
`);
var inCi = (context) => !["", "0", "false"].includes((context.env.CI ?? "").trim().toLowerCase());
var plainProgress = (context, flags) => flags["no-progress"] === true || inCi(context);
function waitStableOption(context, flags) {
  if (flags["wait-stable"] === true && flags["no-wait-stable"] === true)
    throw new CliError("--wait-stable and --no-wait-stable contradict each other: give one", EXIT.usage);
  if (flags["wait-stable"] === true) return true;
  if (flags["no-wait-stable"] === true) return false;
  return inCi(context);
}

// src/commands/deploy.ts
var DEFAULT_TIMEOUT = "15m";
function dashboardLinks(baseUrl, stack) {
  const name = encodeURIComponent(stack);
  return { stack: `${baseUrl}/stacks/${name}`, history: `${baseUrl}/history?stack=${name}` };
}
var MAX_SETTLE_SECONDS = 600;
function settleSecondsOption(flags) {
  const text = flags["settle-seconds"];
  if (typeof text !== "string") return void 0;
  const seconds = /^\d{1,3}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(seconds <= MAX_SETTLE_SECONDS))
    throw new CliError(
      `--settle-seconds must be a whole number of seconds from 0 to ${MAX_SETTLE_SECONDS} (got '${printable(text)}')`,
      EXIT.usage
    );
  return seconds;
}
var timeoutOption = (flags) => {
  const text = typeof flags.timeout === "string" ? flags.timeout : DEFAULT_TIMEOUT;
  return { text, ms: durationOption("timeout", text, { examples: "90s, 15m or 1h", zero: "refused" }) };
};
async function deployCommand(context, stack, flags) {
  if (!stack)
    throw new CliError("Which stack? Usage: stackgate deploy <stack> (see 'stackgate stacks')", EXIT.usage);
  context.known.stack = stack;
  const action = parseAction(typeof flags.action === "string" ? flags.action : "pull-redeploy");
  context.known.action = action;
  const timeout = timeoutOption(flags);
  const settleSeconds = settleSecondsOption(flags);
  const waitStable = waitStableOption(context, flags);
  const { key } = idempotencyKeyOf({
    flag: typeof flags["idempotency-key"] === "string" ? flags["idempotency-key"] : void 0,
    newRun: flags["new-run"] === true,
    env: context.env,
    stack,
    action
  });
  const startedAt = Date.now();
  const progress = createProgress({
    stream: context.stderr,
    what: `${stack} \xB7 ${action}`,
    plain: plainProgress(context, flags),
    quiet: flags.quiet === true
  });
  let result;
  try {
    result = await deploy({
      api: context.api,
      stack,
      action,
      timeoutMs: timeout.ms,
      progress,
      idempotencyKey: key,
      detach: flags.detach === true,
      settleSeconds,
      waitStable,
      stop: context.stop,
      onRun: (runId) => {
        context.known.runId = runId;
      }
    });
  } finally {
    progress.stop();
  }
  return report(context, result, { took: formatElapsed(Date.now() - startedAt), timeout: timeout.text });
}
function report(context, result, { took, timeout }) {
  const { stack, action, runId } = result;
  const url = dashboardLinks(context.api.baseUrl, stack).stack;
  const exitCode2 = {
    succeeded: EXIT.success,
    failed: EXIT.failed,
    unstable: EXIT.failed,
    timeout: EXIT.timeout,
    detached: result.stoppedBy ? EXIT[result.stoppedBy] : EXIT.success
  }[result.outcome];
  const { stdout, stderr } = context;
  if (result.stoppedBy)
    stderr.write(
      runId ? `stopped following run ${runId}; it goes on: ${url}
` : `stopped: ${result.message[0]?.toLowerCase()}${result.message.slice(1)}: ${url}
`
    );
  if (context.json) {
    printJson(context, { ...result, url });
    return exitCode2;
  }
  const what = `${stack} \xB7 ${action}`;
  const run = runId ? ` (run ${runId})` : "";
  switch (result.outcome) {
    case "succeeded":
      if (result.attached) {
        stdout.write(
          `Already deployed by run ${runId} at ${result.finishedAt}: ${what}
${result.message}
${url}
`
        );
        stderr.write(
          "An earlier attempt of this job deployed it (the same idempotency key); --new-run deploys again.\n"
        );
      } else stdout.write(`Succeeded in ${took}: ${what}${run}
${result.message}
${url}
`);
      if (result.settle?.state === "stable") stdout.write("It stayed up: stable.\n");
      else if (result.settle?.state === "watching")
        stderr.write(
          `Stackgate watches whether it stays up until ${result.settle.until}: stackgate wait ${runId} --wait-stable
`
        );
      break;
    case "unstable":
      stderr.write(`Unstable after ${took}: ${what}${run}
${result.message}
${url}
`);
      if (result.attached)
        stderr.write(
          "An earlier attempt of this job deployed it (the same idempotency key); --new-run deploys again.\n"
        );
      break;
    case "failed":
      stderr.write(`Failed after ${took}: ${what}${run}
${result.message}
${url}
`);
      break;
    case "timeout":
      stderr.write(
        result.settle?.state === "watching" ? `Timed out after ${timeout}: ${what} succeeded${run}; Stackgate still watches whether it stays up, until ${result.settle.until}.
Follow it at ${url}
` : `Timed out after ${timeout}: ${what} is still running in Stackgate${run}.
Follow it at ${url}
`
      );
      break;
    case "detached":
      if (result.stoppedBy) break;
      stdout.write(`${runId}
`);
      stderr.write(
        `${what}: run ${runId} ${result.attached ? "(an earlier attempt's) " : ""}goes on in Stackgate: ${url}
Follow it with: stackgate wait ${runId}
`
      );
      break;
  }
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

// src/commands/wait.ts
async function waitCommand(context, runId, flags) {
  if (!runId)
    throw new CliError(
      "Which run? Usage: stackgate wait <run-id> (the id 'stackgate deploy --detach' printed)",
      EXIT.usage
    );
  context.known.runId = runId;
  const timeout = timeoutOption(flags);
  const waitStable = waitStableOption(context, flags);
  const startedAt = Date.now();
  const progress = createProgress({
    stream: context.stderr,
    what: `run ${runId}`,
    plain: plainProgress(context, flags),
    quiet: flags.quiet === true
  });
  let result;
  try {
    result = await waitForRun(runId, {
      api: context.api,
      timeoutMs: timeout.ms,
      progress,
      stop: context.stop,
      waitStable
    });
  } finally {
    progress.stop();
  }
  Object.assign(context.known, { stack: result.stack, action: result.action });
  return report(context, result, { took: formatElapsed(Date.now() - startedAt), timeout: timeout.text });
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
  return {
    baseUrl: `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`,
    urlSource: flags.url === void 0 ? "STACKGATE_URL" : "--url",
    apiKey
  };
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
  0    success (with --detach: the run was accepted)
  1    the deploy failed (Komodo's reason is printed), it did not stay up (unstable, with
       --wait-stable), a scan gate found findings, or Stackgate could not be reached (a
       wrong STACKGATE_URL fails within seconds)
  2    usage error, no such stack, or Stackgate refused the key (401) or the action (403);
       nothing was deployed
  3    the deploy did not finish within --timeout (it goes on in Stackgate)
  130  stopped by Ctrl-C (SIGINT), 143 by SIGTERM: the run goes on in Stackgate`;
var HELP = {
  main: `stackgate \u2014 deploy Komodo stacks through Stackgate from a terminal or a CI pipeline

Usage:
  stackgate deploy <stack> [--action pull-redeploy] [--timeout 15m] [--[no-]wait-stable] [--quiet]
                   [--detach] [--new-run] [--json]
  stackgate wait <run-id> [--timeout 15m] [--[no-]wait-stable] [--quiet] [--json]
  stackgate stacks [--json]
  stackgate history [--stack S] [--limit N] [--json]
  stackgate scans [--stack S] [--image I] [--fail-on critical|high] [--scan-wait 2m] [--json]
  stackgate version                      (also --version, -V)
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
  stackgate deploy <stack> [--action pull-redeploy] [--timeout 15m] [--[no-]wait-stable]
                   [--settle-seconds N] [--quiet] [--detach] [--new-run] [--json]

  <stack>            The stack's name as Komodo and Stackgate show it (see 'stackgate stacks')
  --action ACTION    pull           pull the stack's images; nothing restarts
                     redeploy       take the stack down, then deploy it again
                     pull-redeploy  pull, then redeploy (default)
  --timeout T        How long to wait for the outcome: 90s, 15m, 1h (default 15m), the settle
                     window included. On a timeout the deploy goes on in Stackgate; exit 3.
  --wait-stable      After a successful redeploy, keep following while Stackgate watches the
                     stack's services (its settle window, SETTLE_SECONDS: 60 s by default), and
                     exit 1 when they did not stay up ("web restarted 3 times"), 0 when stable.
                     The default when CI is set; --no-wait-stable ends when Komodo finished.
                     A pull, a failed deploy or a window of 0 s ends when Komodo finished.
  --settle-seconds N How long Stackgate watches the services after this redeploy, 0 to 600
                     (0: not watched); default Stackgate's SETTLE_SECONDS.
  -q, --quiet        Each of Komodo's stages by name and result only, without its output.
  --detach           Print the run's id (stdout) and address (stderr) once Stackgate accepted
                     it, and exit 0; 'stackgate wait <run-id>' follows it later.
  --idempotency-key K  The deploy's idempotency key (default $STACKGATE_IDEMPOTENCY_KEY; in
                     GitHub Actions and GitLab CI one made from the pipeline's identity: the
                     repository or project, the run or pipeline id, the job, stack and action).
                     A repeat with the same key attaches to the run it started, unless that run
                     failed or was interrupted: then it deploys again.
  --new-run          Deploy again on purpose: a new key, whatever a re-run of the job would use.
  --no-progress      Plain progress lines even on a terminal (also when CI is set).

How it works: it first checks what it can without deploying (the stack exists, the key may
run the action on it) and exits 2 when it cannot. It then starts the deploy (Prefer:
respond-async) under its idempotency key, so retrying after a lost answer (a proxy's 502/503/
504, a dropped connection; until --timeout, with backoff) never deploys twice, and a re-run of
the same CI job says "already deployed by run ..." instead of deploying again. A wrong address
fails within seconds, naming STACKGATE_URL: a host that does not resolve, a refused connection,
a TLS error, a web page or a 404 where the API should be. It then follows the run on
Stackgate's live event stream, reconnecting when a proxy cuts it, and reads the run now and
then, so a proxy's read time limit (nginx's 60 s, Cloudflare's 100 s) never ends the wait.
Progress goes to stderr: one redrawn line on a terminal (current step, elapsed time), plain
timestamped lines in CI logs; each of Komodo's stages (Compose Pull, Compose Up, ...) as it
ends, with its command and output (read from the run's log, so none is missed or printed
twice when the stream is cut). Ctrl-C (or SIGTERM) prints "stopped following run <id>; it goes
on: <address>" and exits 130 (143); the deploy goes on. The outcome goes to stdout; with
--json, one object:
  {"outcome":"succeeded|failed|unstable|timeout|detached|refused","success":true,
   "message":"...","stack":"web","action":"pull-redeploy","runId":"...","startedAt":"...",
   "finishedAt":"...","url":"...","attached":true,
   "settle":{"state":"stable","reason":null,"until":"..."},
   "failedStage":{"stage":"Compose Up","command":"...","stdout":"...","stderr":"...","success":false}}
("attached": an earlier attempt of the job had started the run; "settle": whether it stayed
up, where known; "failedStage": the stage that failed a failed deploy; errors carry
"exitCode" and what was known: stack, action, runId, url.)

The API key needs the right to run that action on that stack (a scoped key: the stack and the
action). It follows the runs it started whatever its scope's reads.

${CONNECTION}

${EXIT_CODES}`,
  wait: `stackgate wait <run-id> \u2014 follow a run to its end (one 'stackgate deploy --detach' started)

Usage:
  stackgate wait <run-id> [--timeout 15m] [--[no-]wait-stable] [--quiet] [--no-progress] [--json]

  <run-id>           The run's id, as 'deploy --detach' or 'deploy --json' printed it
  --timeout T        How long to wait for the outcome (default 15m); then exit 3
  --wait-stable      Follow a successful redeploy until its settle window ends, as deploy does
                     (the default when CI is set; --no-wait-stable: end when Komodo finished)
  -q, --quiet        Each stage by name and result only

Prints the run's stages so far (from its log), then each as it ends, and its outcome as
'stackgate deploy' does, with the same exit codes (0 succeeded, 1 failed or unstable,
3 timed out, 130/143 stopped). An unknown run, or one the key may not follow, exits 2.

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
var FOLLOW_FLAGS = {
  "no-progress": { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
  "wait-stable": { type: "boolean" },
  "no-wait-stable": { type: "boolean" }
};
var COMMAND_FLAGS = {
  deploy: {
    action: { type: "string" },
    timeout: { type: "string" },
    "idempotency-key": { type: "string" },
    "new-run": { type: "boolean" },
    detach: { type: "boolean" },
    "settle-seconds": { type: "string" },
    ...FOLLOW_FLAGS
  },
  wait: { timeout: { type: "string" }, ...FOLLOW_FLAGS },
  stacks: {},
  history: { stack: { type: "string" }, limit: { type: "string" } },
  scans: {
    stack: { type: "string" },
    image: { type: "string" },
    "fail-on": { type: "string" },
    "scan-wait": { type: "string" }
  }
};
var COMMANDS = "deploy, wait, stacks, history, scans, version";
var isCommand = (name) => !!name && Object.hasOwn(COMMAND_FLAGS, name);
async function runCli(argv, io) {
  const [first, ...rest] = argv;
  let json = argv.includes("--json");
  const known = {};
  let connection;
  try {
    if (first === void 0 || first === "--help" || first === "-h" || first === "help") {
      const topic = first === "help" && isCommand(rest[0]) ? rest[0] : "main";
      io.stdout.write(`${HELP[topic]}
`);
      return first === void 0 ? EXIT.usage : EXIT.success;
    }
    if (first === "--version" || first === "-V" || first === "version") {
      io.stdout.write(`${VERSION}
`);
      return EXIT.success;
    }
    if (!isCommand(first))
      throw new CliError(
        `Unknown command '${printable(first)}'. Commands: ${COMMANDS} ('stackgate --help').`,
        EXIT.usage
      );
    const { values, positionals } = parseCommandLine(first, rest);
    json = values.json === true;
    if (values.help) {
      io.stdout.write(`${HELP[first]}
`);
      return EXIT.success;
    }
    const expected = first === "deploy" || first === "wait" ? 1 : 0;
    if (positionals.length > expected)
      throw new CliError(
        `Unexpected argument '${printable(positionals[expected])}' ('stackgate ${first} --help')`,
        EXIT.usage
      );
    connection = resolveConnection(values, io.env);
    const context = {
      api: createApi(connection, {
        onRetry: (reason, delayMs) => io.stderr.write(
          `Stackgate did not answer (${reason}); retrying in ${Math.round(delayMs / 1e3)} s
`
        )
      }),
      stdout: io.stdout,
      stderr: io.stderr,
      json,
      env: io.env,
      stop: io.stop,
      known
    };
    switch (first) {
      case "deploy":
        return await deployCommand(context, positionals[0], values);
      case "wait":
        return await waitCommand(context, positionals[0], values);
      case "stacks":
        return await untilStopped(stacksCommand(context), io.stop);
      case "history":
        return await untilStopped(historyCommand(context, values), io.stop);
      case "scans":
        return await untilStopped(scansCommand(context, values), io.stop);
    }
  } catch (error) {
    const exitCode2 = error instanceof CliError ? error.exitCode : EXIT.failed;
    const message = error instanceof Error ? error.message : String(error);
    if (json) {
      const url = connection && (known.stack ? dashboardLinks(connection.baseUrl, known.stack).stack : connection.baseUrl);
      const document = { outcome: outcomeOf(exitCode2), success: false, message, exitCode: exitCode2, ...known, url };
      io.stdout.write(`${JSON.stringify(document, null, 2)}
`);
    }
    io.stderr.write(`stackgate: ${message}
`);
    return exitCode2;
  }
}
function untilStopped(command, stop2) {
  if (!stop2) return command;
  return Promise.race([
    command,
    new Promise((_, reject) => {
      const signal = () => {
        const name = stop2.reason === "SIGTERM" ? "SIGTERM" : "SIGINT";
        reject(new CliError(`stopped (${name})`, EXIT[name]));
      };
      if (stop2.aborted) signal();
      stop2.addEventListener("abort", signal, { once: true });
    })
  ]);
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
var stop = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => {
    if (stop.signal.aborted) process.exit(EXIT[signal]);
    stop.abort(signal);
  });
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error) => {
    if (error.code !== "EPIPE") throw error;
  });
var exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stop: stop.signal
});
process.exitCode = exitCode;
setTimeout(() => process.exit(exitCode), 2e3).unref();
