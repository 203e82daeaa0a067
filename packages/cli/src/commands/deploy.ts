import { type DeployResult, deploy, parseAction } from "../deploy.ts";
import { durationOption, formatElapsed } from "../duration.ts";
import { CliError, EXIT, printable } from "../exit.ts";
import { idempotencyKeyOf } from "../idempotency.ts";
import { createProgress } from "../progress.ts";
import { type CommandContext, type Flags, plainProgress, printJson, waitStableOption } from "./context.ts";

export const DEFAULT_TIMEOUT = "15m";

/** Where a person follows a stack's deploys in the dashboard. */
export function dashboardLinks(baseUrl: string, stack: string) {
  const name = encodeURIComponent(stack);
  return { stack: `${baseUrl}/stacks/${name}`, history: `${baseUrl}/history?stack=${name}` };
}

/** The most `--settle-seconds` may ask, as Stackgate's API allows. */
const MAX_SETTLE_SECONDS = 600;

/** `--settle-seconds N`: a whole number of seconds, 0 (not watched) to 600; undefined: Stackgate's default. */
export function settleSecondsOption(flags: Flags): number | undefined {
  const text = flags["settle-seconds"];
  if (typeof text !== "string") return undefined;
  const seconds = /^\d{1,3}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(seconds <= MAX_SETTLE_SECONDS))
    throw new CliError(
      `--settle-seconds must be a whole number of seconds from 0 to ${MAX_SETTLE_SECONDS} (got '${printable(text)}')`,
      EXIT.usage,
    );
  return seconds;
}

export const timeoutOption = (flags: Flags) => {
  const text = typeof flags.timeout === "string" ? flags.timeout : DEFAULT_TIMEOUT;
  return { text, ms: durationOption("timeout", text, { examples: "90s, 15m or 1h", zero: "refused" }) };
};

export async function deployCommand(context: CommandContext, stack: string | undefined, flags: Flags) {
  if (!stack)
    throw new CliError("Which stack? Usage: stackgate deploy <stack> (see 'stackgate stacks')", EXIT.usage);
  context.known.stack = stack;
  const action = parseAction(typeof flags.action === "string" ? flags.action : "pull-redeploy");
  context.known.action = action;
  const timeout = timeoutOption(flags);
  const settleSeconds = settleSecondsOption(flags);
  const waitStable = waitStableOption(context, flags);
  const { key } = idempotencyKeyOf({
    flag: typeof flags["idempotency-key"] === "string" ? flags["idempotency-key"] : undefined,
    newRun: flags["new-run"] === true,
    env: context.env,
    stack,
    action,
  });

  const startedAt = Date.now();
  const progress = createProgress({
    stream: context.stderr as NodeJS.WritableStream,
    what: `${stack} · ${action}`,
    plain: plainProgress(context, flags),
    quiet: flags.quiet === true,
  });
  let result: DeployResult;
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
      },
    });
  } finally {
    progress.stop();
  }
  return report(context, result, { took: formatElapsed(Date.now() - startedAt), timeout: timeout.text });
}

/** Prints a deploy's or a followed run's result, and answers the exit code it stands for. */
export function report(
  context: CommandContext,
  result: DeployResult,
  { took, timeout }: { took: string; timeout: string },
): number {
  const { stack, action, runId } = result;
  const url = dashboardLinks(context.api.baseUrl, stack).stack;
  const exitCode = {
    succeeded: EXIT.success,
    failed: EXIT.failed,
    unstable: EXIT.failed,
    timeout: EXIT.timeout,
    detached: result.stoppedBy ? EXIT[result.stoppedBy] : EXIT.success,
  }[result.outcome];
  const { stdout, stderr } = context;
  // Said on every stop, --json or not: whoever pressed Ctrl-C, or cancelled the job, reads it there.
  if (result.stoppedBy)
    stderr.write(
      runId
        ? `stopped following run ${runId}; it goes on: ${url}\n`
        : `stopped: ${result.message[0]?.toLowerCase()}${result.message.slice(1)}: ${url}\n`,
    );
  if (context.json) {
    printJson(context, { ...result, url });
    return exitCode;
  }
  const what = `${stack} · ${action}`;
  const run = runId ? ` (run ${runId})` : "";
  switch (result.outcome) {
    case "succeeded":
      if (result.attached) {
        stdout.write(
          `Already deployed by run ${runId} at ${result.finishedAt}: ${what}\n${result.message}\n${url}\n`,
        );
        stderr.write(
          "An earlier attempt of this job deployed it (the same idempotency key); --new-run deploys again.\n",
        );
      } else stdout.write(`Succeeded in ${took}: ${what}${run}\n${result.message}\n${url}\n`);
      if (result.settle?.state === "stable") stdout.write("It stayed up: stable.\n");
      else if (result.settle?.state === "watching")
        stderr.write(
          `Stackgate watches whether it stays up until ${result.settle.until}: stackgate wait ${runId} --wait-stable\n`,
        );
      break;
    case "unstable":
      stderr.write(`Unstable after ${took}: ${what}${run}\n${result.message}\n${url}\n`);
      if (result.attached)
        stderr.write(
          "An earlier attempt of this job deployed it (the same idempotency key); --new-run deploys again.\n",
        );
      break;
    case "failed":
      stderr.write(`Failed after ${took}: ${what}${run}\n${result.message}\n${url}\n`);
      break;
    case "timeout":
      stderr.write(
        result.settle?.state === "watching"
          ? `Timed out after ${timeout}: ${what} succeeded${run}; Stackgate still watches whether it stays up, until ${result.settle.until}.\nFollow it at ${url}\n`
          : `Timed out after ${timeout}: ${what} is still running in Stackgate${run}.\nFollow it at ${url}\n`,
      );
      break;
    case "detached":
      if (result.stoppedBy) break;
      // The id alone on stdout, for RUN_ID=$(stackgate deploy web --detach).
      stdout.write(`${runId}\n`);
      stderr.write(
        `${what}: run ${runId} ${result.attached ? "(an earlier attempt's) " : ""}goes on in Stackgate: ${url}\n` +
          `Follow it with: stackgate wait ${runId}\n`,
      );
      break;
  }
  return exitCode;
}
