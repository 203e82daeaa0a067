#!/usr/bin/env node
// Built by packages/cli/src/bundle.ts; do not edit.

// src/action.ts
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

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
var outcomeOf = (exitCode) => exitCode === EXIT.success ? "succeeded" : exitCode === EXIT.usage ? "refused" : exitCode === EXIT.timeout ? "timeout" : exitCode === EXIT.SIGINT || exitCode === EXIT.SIGTERM ? "detached" : "failed";
function printable(text) {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");
}

// src/stages.ts
var stageOutput = (text) => printable(
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
  text.replace(/<\/?span[^>]*>/g, "").replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "")
).trimEnd();

// src/duration.ts
var LONGEST_WAIT_MS = 2 ** 31 - 1;
function formatElapsed(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1e3));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor(seconds % 3600 / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

// src/commands/deploy.ts
function dashboardLinks(baseUrl, stack) {
  const name = encodeURIComponent(stack);
  return { stack: `${baseUrl}/stacks/${name}`, history: `${baseUrl}/history?stack=${name}` };
}

// src/action.ts
var cliPath = fileURLToPath(new URL("./stackgate.mjs", import.meta.url));
var input = (name) => (process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
var running;
var stoppedBy;
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => {
    stoppedBy ??= signal;
    running?.kill(signal);
  });
function runCli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args, "--json"], {
      env,
      stdio: ["ignore", "pipe", "inherit"]
    });
    running = child;
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      running = void 0;
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = { success: false, message: stdout.trim() || "the stackgate CLI printed no result" };
      }
      const killedBy = signal === "SIGINT" || signal === "SIGTERM" ? EXIT[signal] : EXIT.failed;
      resolve({ exitCode: code ?? killedBy, json });
    });
  });
}
function appendOutput(name, value) {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) return;
  const delimiter = `ghadelimiter_${randomUUID()}`;
  appendFileSync(file, `${name}<<${delimiter}
${value}
${delimiter}
`);
}
var cell = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>");
var commandText = (text) => text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
var OUTCOMES = ["succeeded", "failed", "unstable", "timeout", "detached", "refused"];
var outcomeIn = (json, exitCode) => typeof json.outcome === "string" && OUTCOMES.includes(json.outcome) ? json.outcome : outcomeOf(exitCode);
async function main() {
  const startedAt = Date.now();
  const stack = input("stack");
  const action = input("action") || "pull-redeploy";
  const timeout = input("timeout") || "15m";
  const failOn = input("fail-on");
  const waitStable = input("wait-stable").toLowerCase();
  const settleSeconds = input("settle-seconds");
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("INPUT_")) delete env[name];
  if (input("url")) env.STACKGATE_URL = input("url");
  if (input("api-key")) env.STACKGATE_API_KEY = input("api-key");
  const baseUrl = (env.STACKGATE_URL ?? "").replace(/\/+$/, "");
  const stopped = (signal, message) => ({
    exitCode: EXIT[signal],
    outcome: "detached",
    success: false,
    message,
    runId: "",
    title: `${stack} not deployed: stopped`
  });
  const refused = (message) => ({
    exitCode: EXIT.usage,
    outcome: "refused",
    success: false,
    message,
    runId: "",
    title: ""
  });
  let outcome;
  if (!stack) {
    outcome = refused("The input 'stack' is required");
  } else if (!["", "true", "false"].includes(waitStable)) {
    outcome = refused(`The input 'wait-stable' must be true or false (got '${waitStable}')`);
  } else {
    outcome = {
      exitCode: EXIT.success,
      outcome: "succeeded",
      success: true,
      message: "",
      runId: "",
      title: ""
    };
    if (failOn) {
      const gate = await runCli(["scans", "--stack", stack, "--fail-on", failOn], env);
      if (gate.exitCode !== EXIT.success) {
        const failing = gate.json.failing ?? [];
        const found = gate.exitCode === EXIT.failed && failing.length > 0;
        outcome = {
          exitCode: gate.exitCode,
          outcome: found ? "refused" : outcomeOf(gate.exitCode),
          success: false,
          runId: "",
          title: `${stack} not deployed: scan gate`,
          message: found ? `Not deployed: ${failing.length} image(s) of ${stack} have findings at or above ${failOn}: ${failing.join(", ")}` : String(gate.json.message ?? "the scan gate failed")
        };
      }
    }
    if (outcome.success && stoppedBy)
      outcome = stopped(stoppedBy, "Stopped before deploying; nothing was deployed");
    if (outcome.success) {
      const args = ["deploy", stack, "--action", action, "--timeout", timeout];
      args.push(waitStable === "false" ? "--no-wait-stable" : "--wait-stable");
      if (settleSeconds) args.push("--settle-seconds", settleSeconds);
      const run = await runCli(args, env);
      const ended = outcomeIn(run.json, run.exitCode);
      outcome = {
        exitCode: run.exitCode,
        outcome: ended,
        success: ended === "succeeded",
        message: String(run.json.message ?? ""),
        runId: String(run.json.runId ?? ""),
        title: `${stack} \xB7 ${action} ${ended}`,
        settle: run.json.settle,
        failedStage: run.json.failedStage
      };
    }
  }
  appendOutput("outcome", outcome.outcome);
  appendOutput("run-id", outcome.runId);
  appendOutput("success", String(outcome.success));
  appendOutput("message", outcome.message);
  writeSummary({ ...outcome, stack, baseUrl, took: formatElapsed(Date.now() - startedAt) });
  const what = stack ? `${stack} \xB7 ${action}${outcome.runId ? ` (run ${outcome.runId})` : ""}: ` : "";
  process.stdout.write(`Stackgate ${outcome.outcome}: ${what}${oneLine(outcome.message)}
`);
  if (outcome.outcome === "detached")
    process.stdout.write(`::warning title=Stackgate::${commandText(outcome.message)}
`);
  else if (!outcome.success)
    process.stdout.write(`::error title=Stackgate::${commandText(outcome.message)}
`);
  return outcome.exitCode;
}
var oneLine = (text) => text.replace(/\s*[\r\n]+\s*/g, " ");
var ICONS = {
  succeeded: "\u2705",
  failed: "\u274C",
  unstable: "\u26A0\uFE0F",
  refused: "\u274C",
  timeout: "\u23F1\uFE0F",
  detached: "\u23F9\uFE0F"
};
function writeSummary(summary) {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  const lines = [
    `### ${ICONS[summary.outcome]} Stackgate: ${cell(summary.title || "deploy not started")}`,
    "",
    "| | |",
    "|---|---|",
    `| Outcome | ${summary.outcome} |`,
    `| Message | ${cell(summary.message)} |`
  ];
  if (summary.runId) lines.push(`| Run | \`${cell(summary.runId)}\` |`);
  if (summary.settle) lines.push(`| Stayed up | ${cell(settleText(summary.settle))} |`);
  lines.push(`| Took | ${summary.took} |`, "");
  if (summary.failedStage) lines.push(...stageSection(summary.failedStage));
  if (summary.stack && summary.baseUrl) {
    const links = dashboardLinks(summary.baseUrl, summary.stack);
    lines.push(
      `[Open ${cell(summary.stack)} in Stackgate](${links.stack}) \xB7 [Its deploy history](${links.history})`,
      ""
    );
  }
  appendFileSync(file, `${lines.join("\n")}
`);
}
function settleText({ state, reason, until }) {
  if (state === "watching") return `still watched until ${until}`;
  return reason ? `${state}: ${reason}` : state;
}
var SUMMARY_OUTPUT_CHARS = 3e4;
var escapeHtml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
function stageSection(stage) {
  const lines = [`<details open><summary>Failed stage: ${escapeHtml(stage.stage)}</summary>`, ""];
  if (stage.command) lines.push(`<pre>$ ${escapeHtml(stage.command)}</pre>`, "");
  for (const [name, text] of [
    ["stderr", stage.stderr],
    ["stdout", stage.stdout]
  ]) {
    let output = stageOutput(text);
    if (!output) continue;
    if (output.length > SUMMARY_OUTPUT_CHARS) output = `\u2026${output.slice(-SUMMARY_OUTPUT_CHARS)}`;
    lines.push(`${name}:`, "", `<pre>${escapeHtml(output)}</pre>`, "");
  }
  lines.push("</details>", "");
  return lines;
}
process.exitCode = await main();
