import { type DeployResult, waitForRun } from "../deploy.ts";
import { formatElapsed } from "../duration.ts";
import { CliError, EXIT } from "../exit.ts";
import { createProgress } from "../progress.ts";
import { type CommandContext, type Flags, plainProgress, waitStableOption } from "./context.ts";
import { report, timeoutOption } from "./deploy.ts";

/** `stackgate wait <run-id>`: follows a run to its end, with deploy's outcomes and exit codes. */
export async function waitCommand(context: CommandContext, runId: string | undefined, flags: Flags) {
  if (!runId)
    throw new CliError(
      "Which run? Usage: stackgate wait <run-id> (the id 'stackgate deploy --detach' printed)",
      EXIT.usage,
    );
  context.known.runId = runId;
  const timeout = timeoutOption(flags);
  const waitStable = waitStableOption(context, flags);
  const startedAt = Date.now();
  const progress = createProgress({
    stream: context.stderr as NodeJS.WritableStream,
    what: `run ${runId}`,
    plain: plainProgress(context, flags),
    quiet: flags.quiet === true,
  });
  let result: DeployResult;
  try {
    result = await waitForRun(runId, {
      api: context.api,
      timeoutMs: timeout.ms,
      progress,
      stop: context.stop,
      waitStable,
    });
  } finally {
    progress.stop();
  }
  Object.assign(context.known, { stack: result.stack, action: result.action });
  return report(context, result, { took: formatElapsed(Date.now() - startedAt), timeout: timeout.text });
}
