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
  /** The deploy failed (Komodo's reason is printed), or a scan gate found findings. */
  failed: 1,
  /** A usage error, or Stackgate refused the key (401) or the action (403). */
  usage: 2,
  /** The run did not finish within --timeout (it goes on in Stackgate). */
  timeout: 3
};

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
function runCli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args, "--json"], {
      env,
      stdio: ["ignore", "pipe", "inherit"]
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = { success: false, message: stdout.trim() || "the stackgate CLI printed no result" };
      }
      resolve({ exitCode: code ?? EXIT.failed, json });
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
async function main() {
  const startedAt = Date.now();
  const stack = input("stack");
  const action = input("action") || "pull-redeploy";
  const timeout = input("timeout") || "15m";
  const failOn = input("fail-on");
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("INPUT_")) delete env[name];
  if (input("url")) env.STACKGATE_URL = input("url");
  if (input("api-key")) env.STACKGATE_API_KEY = input("api-key");
  const baseUrl = (env.STACKGATE_URL ?? "").replace(/\/+$/, "");
  let outcome;
  if (!stack) {
    outcome = {
      exitCode: EXIT.usage,
      success: false,
      message: "The input 'stack' is required",
      runId: "",
      title: ""
    };
  } else {
    outcome = { exitCode: EXIT.success, success: true, message: "", runId: "", title: "" };
    if (failOn) {
      const gate = await runCli(["scans", "--stack", stack, "--fail-on", failOn], env);
      if (gate.exitCode !== EXIT.success) {
        const failing = gate.json.failing ?? [];
        outcome = {
          exitCode: gate.exitCode,
          success: false,
          runId: "",
          title: `${stack} not deployed: scan gate`,
          message: gate.exitCode === EXIT.failed && failing.length > 0 ? `Not deployed: ${failing.length} image(s) of ${stack} have findings at or above ${failOn}: ${failing.join(", ")}` : String(gate.json.message ?? "the scan gate failed")
        };
      }
    }
    if (outcome.success) {
      const run = await runCli(["deploy", stack, "--action", action, "--timeout", timeout], env);
      outcome = {
        exitCode: run.exitCode,
        success: run.json.success === true,
        message: String(run.json.message ?? ""),
        runId: String(run.json.runId ?? ""),
        title: `${stack} \xB7 ${action} ${run.json.outcome ?? "failed"}`
      };
    }
  }
  appendOutput("run-id", outcome.runId);
  appendOutput("success", String(outcome.success));
  appendOutput("message", outcome.message);
  writeSummary({ ...outcome, stack, baseUrl, took: formatElapsed(Date.now() - startedAt) });
  if (!outcome.success) process.stdout.write(`::error title=Stackgate::${commandText(outcome.message)}
`);
  return outcome.exitCode;
}
function writeSummary(summary) {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  const lines = [
    `### ${summary.success ? "\u2705" : "\u274C"} Stackgate: ${cell(summary.title || "deploy not started")}`,
    "",
    "| | |",
    "|---|---|",
    `| Outcome | ${summary.success ? "succeeded" : "failed"} |`,
    `| Message | ${cell(summary.message)} |`
  ];
  if (summary.runId) lines.push(`| Run | \`${cell(summary.runId)}\` |`);
  lines.push(`| Took | ${summary.took} |`, "");
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
process.exitCode = await main();
