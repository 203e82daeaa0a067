import { type ParseArgsConfig, parseArgs } from "node:util";
import type { CommandContext, Flags, Known, Output } from "./commands/context.ts";
import { dashboardLinks, deployCommand } from "./commands/deploy.ts";
import { historyCommand } from "./commands/history.ts";
import { scansCommand } from "./commands/scans.ts";
import { stacksCommand } from "./commands/stacks.ts";
import { waitCommand } from "./commands/wait.ts";
import { type Connection, resolveConnection } from "./config.ts";
import { CliError, EXIT, outcomeOf, printable, type StopSignal } from "./exit.ts";
import { HELP } from "./help.ts";
import { createApi } from "./http.ts";

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: Output;
  stderr: Output;
  /** Aborted, with the signal's name as its reason, when the process gets SIGINT or SIGTERM. */
  stop?: AbortSignal;
}

const CONNECTION_FLAGS = {
  url: { type: "string" },
  "api-key": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** How a run is followed, by `deploy` and `wait` alike. */
const FOLLOW_FLAGS = {
  "no-progress": { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
  "wait-stable": { type: "boolean" },
  "no-wait-stable": { type: "boolean" },
} as const;

const COMMAND_FLAGS: Record<string, NonNullable<ParseArgsConfig["options"]>> = {
  deploy: {
    action: { type: "string" },
    timeout: { type: "string" },
    "idempotency-key": { type: "string" },
    "new-run": { type: "boolean" },
    detach: { type: "boolean" },
    "settle-seconds": { type: "string" },
    ...FOLLOW_FLAGS,
  },
  wait: { timeout: { type: "string" }, ...FOLLOW_FLAGS },
  stacks: {},
  history: { stack: { type: "string" }, limit: { type: "string" } },
  scans: {
    stack: { type: "string" },
    image: { type: "string" },
    "fail-on": { type: "string" },
    "scan-wait": { type: "string" },
  },
};

type Command = "deploy" | "wait" | "stacks" | "history" | "scans";
const COMMANDS = "deploy, wait, stacks, history, scans, version";
const isCommand = (name: string | undefined): name is Command => !!name && Object.hasOwn(COMMAND_FLAGS, name);

/** Runs one invocation and answers its exit code; every message goes to `io`. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  let json = argv.includes("--json");
  const known: Known = {};
  let connection: Connection | undefined;
  try {
    if (first === undefined || first === "--help" || first === "-h" || first === "help") {
      const topic = first === "help" && isCommand(rest[0]) ? rest[0] : "main";
      io.stdout.write(`${HELP[topic]}\n`);
      return first === undefined ? EXIT.usage : EXIT.success;
    }
    if (first === "--version" || first === "-V" || first === "version") {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.success;
    }
    if (!isCommand(first))
      throw new CliError(
        `Unknown command '${printable(first)}'. Commands: ${COMMANDS} ('stackgate --help').`,
        EXIT.usage,
      );
    const { values, positionals } = parseCommandLine(first, rest);
    json = values.json === true;
    if (values.help) {
      io.stdout.write(`${HELP[first]}\n`);
      return EXIT.success;
    }
    const expected = first === "deploy" || first === "wait" ? 1 : 0;
    if (positionals.length > expected)
      throw new CliError(
        `Unexpected argument '${printable(positionals[expected])}' ('stackgate ${first} --help')`,
        EXIT.usage,
      );

    connection = resolveConnection(values as { url?: string; "api-key"?: string }, io.env);
    const context: CommandContext = {
      api: createApi(connection, {
        onRetry: (reason, delayMs) =>
          io.stderr.write(
            `Stackgate did not answer (${reason}); retrying in ${Math.round(delayMs / 1000)} s\n`,
          ),
      }),
      stdout: io.stdout,
      stderr: io.stderr,
      json,
      env: io.env,
      stop: io.stop,
      known,
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
    const exitCode = error instanceof CliError ? error.exitCode : EXIT.failed;
    const message = error instanceof Error ? error.message : String(error);
    if (json) {
      const url =
        connection &&
        (known.stack ? dashboardLinks(connection.baseUrl, known.stack).stack : connection.baseUrl);
      const document = { outcome: outcomeOf(exitCode), success: false, message, exitCode, ...known, url };
      io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    }
    io.stderr.write(`stackgate: ${message}\n`);
    return exitCode;
  }
}

/** A command that has nothing to leave behind ends at once on SIGINT or SIGTERM, with 130 or 143. */
function untilStopped(command: Promise<number>, stop: AbortSignal | undefined): Promise<number> {
  if (!stop) return command;
  return Promise.race([
    command,
    new Promise<never>((_, reject) => {
      const signal = () => {
        const name: StopSignal = stop.reason === "SIGTERM" ? "SIGTERM" : "SIGINT";
        reject(new CliError(`stopped (${name})`, EXIT[name]));
      };
      if (stop.aborted) signal();
      stop.addEventListener("abort", signal, { once: true });
    }),
  ]);
}

function parseCommandLine(command: Command, args: string[]): { values: Flags; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...CONNECTION_FLAGS, ...COMMAND_FLAGS[command] },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Flags, positionals };
  } catch (error) {
    throw new CliError(`${(error as Error).message} ('stackgate ${command} --help')`, EXIT.usage);
  }
}

declare const STACKGATE_CLI_VERSION: string | undefined;
/** Set by the bundle; "development" when run from the sources. */
const VERSION = typeof STACKGATE_CLI_VERSION === "string" ? STACKGATE_CLI_VERSION : "development";
