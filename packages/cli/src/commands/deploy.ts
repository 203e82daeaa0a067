import { type DeployResult, deploy, parseAction } from "../deploy.ts";
import { durationOption, formatElapsed } from "../duration.ts";
import { CliError, EXIT } from "../exit.ts";
import { createProgress } from "../progress.ts";
import { type CommandContext, type Flags, printJson } from "./context.ts";

export const DEFAULT_TIMEOUT = "15m";

/** Where a person follows a stack's deploys in the dashboard. */
export function dashboardLinks(baseUrl: string, stack: string) {
  const name = encodeURIComponent(stack);
  return { stack: `${baseUrl}/stacks/${name}`, history: `${baseUrl}/history?stack=${name}` };
}

export async function deployCommand(context: CommandContext, stack: string | undefined, flags: Flags) {
  if (!stack)
    throw new CliError("Which stack? Usage: stackgate deploy <stack> (see 'stackgate stacks')", EXIT.usage);
  const action = parseAction(typeof flags.action === "string" ? flags.action : "pull-redeploy");
  const timeoutText = typeof flags.timeout === "string" ? flags.timeout : DEFAULT_TIMEOUT;
  const timeoutMs = durationOption("timeout", timeoutText, { examples: "90s, 15m or 1h", zero: "refused" });

  const startedAt = Date.now();
  const progress = createProgress({
    stream: context.stderr as NodeJS.WritableStream,
    what: `${stack} · ${action}`,
  });
  let result: DeployResult;
  try {
    result = await deploy({ api: context.api, stack, action, timeoutMs, progress });
  } finally {
    progress.stop();
  }
  const url = dashboardLinks(context.api.baseUrl, stack).stack;
  const exitCode =
    result.outcome === "succeeded" ? EXIT.success : result.outcome === "timeout" ? EXIT.timeout : EXIT.failed;
  if (context.json) {
    printJson(context, { ...result, url });
    return exitCode;
  }
  const took = formatElapsed(Date.now() - startedAt);
  const run = result.runId ? ` (run ${result.runId})` : "";
  if (result.outcome === "succeeded")
    context.stdout.write(`Succeeded in ${took}: ${stack} · ${action}${run}\n${result.message}\n${url}\n`);
  else if (result.outcome === "timeout")
    context.stderr.write(
      `Timed out after ${timeoutText}: ${stack} · ${action} is still running in Stackgate${run}.\nFollow it at ${url}\n`,
    );
  else context.stderr.write(`Failed after ${took}: ${stack} · ${action}${run}\n${result.message}\n${url}\n`);
  return exitCode;
}
