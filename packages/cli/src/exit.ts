/** The exit codes every command keeps; docs/ci.md and each --help list them. */
export const EXIT = {
  success: 0,
  /** The deploy failed (Komodo's reason is printed), did not stay up (unstable), or a scan gate found findings. */
  failed: 1,
  /** A usage error, or Stackgate refused the key (401) or the action (403). */
  usage: 2,
  /** The run did not finish within --timeout (it goes on in Stackgate). */
  timeout: 3,
  /** Stopped by SIGINT (Ctrl-C) or SIGTERM while following a run (it goes on in Stackgate): 128 + the signal. */
  SIGINT: 130,
  SIGTERM: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * How a command ended, as `--json` and the GitHub Action's `outcome` output name it. `unstable`: the
 * deploy succeeded, then its services did not stay up within the settle window (exit 1).
 */
export type Outcome = "succeeded" | "failed" | "unstable" | "timeout" | "detached" | "refused";

/** The outcome an exit code stands for, where the command printed none of its own. */
export const outcomeOf = (exitCode: number): Outcome =>
  exitCode === EXIT.success
    ? "succeeded"
    : exitCode === EXIT.usage
      ? "refused"
      : exitCode === EXIT.timeout
        ? "timeout"
        : exitCode === EXIT.SIGINT || exitCode === EXIT.SIGTERM
          ? "detached"
          : "failed";

/** The signals the CLI stops following on, each with its exit code. */
export type StopSignal = "SIGINT" | "SIGTERM";

/** An error that ends the command with its message and a given exit code. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Text from the network as it may be shown on a terminal: no control characters, escapes or bidi overrides. */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what is removed
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");
}
