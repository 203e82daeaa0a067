// The GitHub Action's entry point (action.yml, `runs.using: node24`). It runs the bundled CLI beside
// it as a child process, so the action and a pipeline calling `stackgate` behave the same: its
// progress lines go straight to the job's log, its --json result becomes the step's outputs
// (GITHUB_OUTPUT) and a job summary (GITHUB_STEP_SUMMARY) with a link to the stack in the dashboard.
// A cancelled job's SIGINT or SIGTERM goes on to the CLI, which stops following the run (it goes on
// in Stackgate); the outputs (`outcome: detached`) and the summary are still written.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dashboardLinks } from "./commands/deploy.ts";
import type { RunSettle } from "./deploy.ts";
import { formatElapsed } from "./duration.ts";
import { EXIT, type Outcome, outcomeOf, type StopSignal } from "./exit.ts";
import { type RunStage, stageOutput } from "./stages.ts";

const cliPath = fileURLToPath(new URL("./stackgate.mjs", import.meta.url));

/** An input as the runner passes it: INPUT_<NAME> with spaces as underscores (hyphens stay). */
const input = (name: string) => (process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();

interface CliResult {
  exitCode: number;
  // biome-ignore lint/suspicious/noExplicitAny: the CLI's --json document, read field by field
  json: any;
}

let running: ChildProcess | undefined;
let stoppedBy: StopSignal | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as StopSignal[])
  process.on(signal, () => {
    stoppedBy ??= signal;
    running?.kill(signal);
  });

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args, "--json"], {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    running = child;
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      running = undefined;
      let json: unknown;
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

interface StepOutcome {
  exitCode: number;
  outcome: Outcome;
  success: boolean;
  message: string;
  runId: string;
  title: string;
  /** Whether the deploy stayed up, as the CLI knew it. */
  settle?: RunSettle;
  /** The stage that failed a failed deploy, with its output. */
  failedStage?: RunStage;
}

const OUTCOMES: readonly string[] = ["succeeded", "failed", "unstable", "timeout", "detached", "refused"];
const outcomeIn = (json: { outcome?: unknown }, exitCode: number): Outcome =>
  typeof json.outcome === "string" && OUTCOMES.includes(json.outcome)
    ? (json.outcome as Outcome)
    : outcomeOf(exitCode);

async function main(): Promise<number> {
  const startedAt = Date.now();
  const stack = input("stack");
  const action = input("action") || "pull-redeploy";
  const timeout = input("timeout") || "15m";
  const failOn = input("fail-on");
  const waitStable = input("wait-stable").toLowerCase();
  const settleSeconds = input("settle-seconds");
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("INPUT_")) delete env[name];
  if (input("url")) env.STACKGATE_URL = input("url");
  if (input("api-key")) env.STACKGATE_API_KEY = input("api-key");
  const baseUrl = (env.STACKGATE_URL ?? "").replace(/\/+$/, "");

  const stopped = (signal: StopSignal, message: string): StepOutcome => ({
    exitCode: EXIT[signal],
    outcome: "detached",
    success: false,
    message,
    runId: "",
    title: `${stack} not deployed: stopped`,
  });
  const refused = (message: string): StepOutcome => ({
    exitCode: EXIT.usage,
    outcome: "refused",
    success: false,
    message,
    runId: "",
    title: "",
  });
  let outcome: StepOutcome;
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
      title: "",
    };
    if (failOn) {
      const gate = await runCli(["scans", "--stack", stack, "--fail-on", failOn], env);
      if (gate.exitCode !== EXIT.success) {
        const failing: string[] = gate.json.failing ?? [];
        const found = gate.exitCode === EXIT.failed && failing.length > 0;
        outcome = {
          exitCode: gate.exitCode,
          outcome: found ? "refused" : outcomeOf(gate.exitCode),
          success: false,
          runId: "",
          title: `${stack} not deployed: scan gate`,
          message: found
            ? `Not deployed: ${failing.length} image(s) of ${stack} have findings at or above ${failOn}: ${failing.join(", ")}`
            : String(gate.json.message ?? "the scan gate failed"),
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
        title: `${stack} · ${action} ${ended}`,
        settle: run.json.settle,
        failedStage: run.json.failedStage,
      };
    }
  }

  appendOutput("outcome", outcome.outcome);
  appendOutput("run-id", outcome.runId);
  appendOutput("success", String(outcome.success));
  appendOutput("message", outcome.message);
  writeSummary({ ...outcome, stack, baseUrl, took: formatElapsed(Date.now() - startedAt) });
  // One line that says it all, whatever happened: the log's last word on the step.
  const what = stack ? `${stack} · ${action}${outcome.runId ? ` (run ${outcome.runId})` : ""}: ` : "";
  process.stdout.write(`Stackgate ${outcome.outcome}: ${what}${oneLine(outcome.message)}\n`);
  if (outcome.outcome === "detached")
    process.stdout.write(`::warning title=Stackgate::${commandText(outcome.message)}\n`);
  else if (!outcome.success)
    process.stdout.write(`::error title=Stackgate::${commandText(outcome.message)}\n`);
  return outcome.exitCode;
}

const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, " ");

const ICONS: Record<Outcome, string> = {
  succeeded: "✅",
  failed: "❌",
  unstable: "⚠️",
  refused: "❌",
  timeout: "⏱️",
  detached: "⏹️",
};

function writeSummary(summary: StepOutcome & { stack: string; baseUrl: string; took: string }) {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  const lines = [
    `### ${ICONS[summary.outcome]} Stackgate: ${cell(summary.title || "deploy not started")}`,
    "",
    "| | |",
    "|---|---|",
    `| Outcome | ${summary.outcome} |`,
    `| Message | ${cell(summary.message)} |`,
  ];
  if (summary.runId) lines.push(`| Run | \`${cell(summary.runId)}\` |`);
  if (summary.settle) lines.push(`| Stayed up | ${cell(settleText(summary.settle))} |`);
  lines.push(`| Took | ${summary.took} |`, "");
  if (summary.failedStage) lines.push(...stageSection(summary.failedStage));
  if (summary.stack && summary.baseUrl) {
    const links = dashboardLinks(summary.baseUrl, summary.stack);
    lines.push(
      `[Open ${cell(summary.stack)} in Stackgate](${links.stack}) · [Its deploy history](${links.history})`,
      "",
    );
  }
  appendFileSync(file, `${lines.join("\n")}\n`);
}

/** A settle verdict in words: `unstable: web restarted 3 times`. */
function settleText({ state, reason, until }: RunSettle): string {
  if (state === "watching") return `still watched until ${until}`;
  return reason ? `${state}: ${reason}` : state;
}

/** The most of one stream of a stage's output the summary shows: its end, where compose says what failed. */
const SUMMARY_OUTPUT_CHARS = 30_000;

/** HTML-escaped text for a `<pre>` block. */
const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The failed stage of a failed deploy, with its command and output (stderr, then stdout), open. */
function stageSection(stage: RunStage): string[] {
  const lines = [`<details open><summary>Failed stage: ${escapeHtml(stage.stage)}</summary>`, ""];
  if (stage.command) lines.push(`<pre>$ ${escapeHtml(stage.command)}</pre>`, "");
  for (const [name, text] of [
    ["stderr", stage.stderr],
    ["stdout", stage.stdout],
  ] as const) {
    let output = stageOutput(text);
    if (!output) continue;
    if (output.length > SUMMARY_OUTPUT_CHARS) output = `…${output.slice(-SUMMARY_OUTPUT_CHARS)}`;
    lines.push(`${name}:`, "", `<pre>${escapeHtml(output)}</pre>`, "");
  }
  lines.push("</details>", "");
  return lines;
}

// Last, once every constant above is defined.
process.exitCode = await main();
