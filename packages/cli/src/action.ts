// The GitHub Action's entry point (action.yml, `runs.using: node24`). It runs the bundled CLI beside
// it as a child process, so the action and a pipeline calling `stackgate` behave the same: its
// progress lines go straight to the job's log, its --json result becomes the step's outputs
// (GITHUB_OUTPUT) and a job summary (GITHUB_STEP_SUMMARY) with a link to the stack in the dashboard.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dashboardLinks } from "./commands/deploy.ts";
import { formatElapsed } from "./duration.ts";
import { EXIT } from "./exit.ts";

const cliPath = fileURLToPath(new URL("./stackgate.mjs", import.meta.url));

/** An input as the runner passes it: INPUT_<NAME> with spaces as underscores (hyphens stay). */
const input = (name: string) => (process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();

interface CliResult {
  exitCode: number;
  // biome-ignore lint/suspicious/noExplicitAny: the CLI's --json document, read field by field
  json: any;
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args, "--json"], {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = { success: false, message: stdout.trim() || "the stackgate CLI printed no result" };
      }
      resolve({ exitCode: code ?? EXIT.failed, json });
    });
  });
}

/** Appends `name=value` to a GitHub file command, in the heredoc form that survives any value. */
function appendOutput(name: string, value: string) {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) return;
  const delimiter = `ghadelimiter_${randomUUID()}`;
  appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
}

/** Text as Markdown table cell content: no HTML, no table breaks. */
const cell = (text: string) =>
  text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\|/g, "\\|")
    .replace(/\r?\n/g, "<br>");

/** A workflow command's message, escaped as the runner expects. */
const commandText = (text: string) => text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");

async function main(): Promise<number> {
  const startedAt = Date.now();
  const stack = input("stack");
  const action = input("action") || "pull-redeploy";
  const timeout = input("timeout") || "15m";
  const failOn = input("fail-on");
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("INPUT_")) delete env[name];
  if (input("url")) env.STACKGATE_URL = input("url");
  if (input("api-key")) env.STACKGATE_API_KEY = input("api-key");
  const baseUrl = (env.STACKGATE_URL ?? "").replace(/\/+$/, "");

  let outcome: { exitCode: number; success: boolean; message: string; runId: string; title: string };
  if (!stack) {
    outcome = {
      exitCode: EXIT.usage,
      success: false,
      message: "The input 'stack' is required",
      runId: "",
      title: "",
    };
  } else {
    outcome = { exitCode: EXIT.success, success: true, message: "", runId: "", title: "" };
    if (failOn) {
      const gate = await runCli(["scans", "--stack", stack, "--fail-on", failOn], env);
      if (gate.exitCode !== EXIT.success) {
        const failing: string[] = gate.json.failing ?? [];
        outcome = {
          exitCode: gate.exitCode,
          success: false,
          runId: "",
          title: `${stack} not deployed: scan gate`,
          message:
            gate.exitCode === EXIT.failed && failing.length > 0
              ? `Not deployed: ${failing.length} image(s) of ${stack} have findings at or above ${failOn}: ${failing.join(", ")}`
              : String(gate.json.message ?? "the scan gate failed"),
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
        title: `${stack} · ${action} ${run.json.outcome ?? "failed"}`,
      };
    }
  }

  appendOutput("run-id", outcome.runId);
  appendOutput("success", String(outcome.success));
  appendOutput("message", outcome.message);
  writeSummary({ ...outcome, stack, baseUrl, took: formatElapsed(Date.now() - startedAt) });
  if (!outcome.success) process.stdout.write(`::error title=Stackgate::${commandText(outcome.message)}\n`);
  return outcome.exitCode;
}

function writeSummary(summary: {
  success: boolean;
  title: string;
  message: string;
  runId: string;
  stack: string;
  baseUrl: string;
  took: string;
}) {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  const lines = [
    `### ${summary.success ? "✅" : "❌"} Stackgate: ${cell(summary.title || "deploy not started")}`,
    "",
    "| | |",
    "|---|---|",
    `| Outcome | ${summary.success ? "succeeded" : "failed"} |`,
    `| Message | ${cell(summary.message)} |`,
  ];
  if (summary.runId) lines.push(`| Run | \`${cell(summary.runId)}\` |`);
  lines.push(`| Took | ${summary.took} |`, "");
  if (summary.stack && summary.baseUrl) {
    const links = dashboardLinks(summary.baseUrl, summary.stack);
    lines.push(
      `[Open ${cell(summary.stack)} in Stackgate](${links.stack}) · [Its deploy history](${links.history})`,
      "",
    );
  }
  appendFileSync(file, `${lines.join("\n")}\n`);
}

process.exitCode = await main();
