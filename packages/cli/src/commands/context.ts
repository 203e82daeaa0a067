import { CliError, EXIT } from "../exit.ts";
import type { Api } from "../http.ts";

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** What an error's JSON carries beside its message: what the command knew when it failed. */
export interface Known {
  stack?: string;
  action?: string;
  runId?: string;
}

/** What every command is given: the API, where to print, and whether to print JSON. */
export interface CommandContext {
  api: Api;
  stdout: Output;
  stderr: Output;
  json: boolean;
  env: Record<string, string | undefined>;
  /** Aborted, with the signal's name as its reason, on SIGINT or SIGTERM. */
  stop?: AbortSignal;
  /** Filled in as the command learns it. */
  known: Known;
}

/** A command's flags as parsed, by name. */
export type Flags = Record<string, string | boolean | undefined>;

export const printJson = (context: CommandContext, value: unknown) =>
  context.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** Whether this runs in CI: `CI` set to anything but empty, 0 or false. */
const inCi = (context: CommandContext) =>
  !["", "0", "false"].includes((context.env.CI ?? "").trim().toLowerCase());

/** Whether progress is plain lines even on a terminal: in CI (`CI` set) or with --no-progress. */
export const plainProgress = (context: CommandContext, flags: Flags) =>
  flags["no-progress"] === true || inCi(context);

/** Whether to follow a successful deploy until its settle window ends: --wait-stable, by default in CI. */
export function waitStableOption(context: CommandContext, flags: Flags): boolean {
  if (flags["wait-stable"] === true && flags["no-wait-stable"] === true)
    throw new CliError("--wait-stable and --no-wait-stable contradict each other: give one", EXIT.usage);
  if (flags["wait-stable"] === true) return true;
  if (flags["no-wait-stable"] === true) return false;
  return inCi(context);
}
