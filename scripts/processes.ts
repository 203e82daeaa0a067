import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire, stripTypeScriptTypes } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

export interface ProcessSpec {
  name: string;
  args: string[];
  env?: Record<string, string | undefined>;
  color: number;
  /**
   * Started only once this URL answers (any HTTP status), or after 10 s without an answer: on a
   * machine with few cores, the process it depends on gets them to itself while it starts.
   */
  startWhenAnswering?: string;
}

/** Resolves once `url` answers over HTTP, or after `timeoutMs`. */
function whenAnswering(url: string, timeoutMs: number): Promise<void> {
  // Through require: an `import` of node:http would load undici into the supervisor (about 10 MiB).
  const http = createRequire(import.meta.url)("node:http") as typeof import("node:http");
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve) => {
    const attempt = () => {
      if (Date.now() > deadline) return resolve();
      const probe = http.get(url, (response) => {
        response.resume();
        resolve();
      });
      probe.on("error", () => setTimeout(attempt, 20));
    };
    attempt();
  });
}

/** Prefixes every line a child prints with its name, so interleaved logs stay readable. */
function pipeWithPrefix(
  stream: NodeJS.ReadableStream,
  name: string,
  color: number,
  target: NodeJS.WritableStream,
) {
  const prefix = `\x1b[${color}m${name.padEnd(9)}|\x1b[0m `;
  let pending = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) target.write(`${prefix}${line}\n`);
  });
  stream.on("end", () => pending && target.write(`${prefix}${pending}\n`));
}

/** sysexits' EX_CONFIG: the process said what is wrong with its configuration; starting it again will not help. */
export const CONFIG_ERROR_EXIT_CODE = 78;

export interface SupervisorOptions {
  /** The wait before the first restart; it doubles with each crash in a row. */
  firstRestartDelayMs?: number;
  maxRestartDelayMs?: number;
  /** A process that stayed up this long is starting afresh: its next restart waits the first delay again. */
  stableAfterMs?: number;
}

const describeExit = (code: number | null, signal: NodeJS.Signals | null) =>
  signal ? `killed by ${signal}` : `exit code ${code}`;

/**
 * Runs the processes together. One that crashes is started again after a wait that doubles while it
 * keeps crashing; the others keep running. One that exits with CONFIG_ERROR_EXIT_CODE stops them all
 * (its own line said why). Ctrl-C or SIGTERM stops them all.
 */
export function runTogether(
  specs: ProcessSpec[],
  { firstRestartDelayMs = 1000, maxRestartDelayMs = 30_000, stableAfterMs = 60_000 }: SupervisorOptions = {},
) {
  const children = new Map<string, ChildProcess>();
  const pendingRestarts = new Map<string, NodeJS.Timeout>();
  let stopping = false;
  let exitCode = 0;

  const exitWhenAllStopped = () => {
    if (children.size === 0) process.exit(exitCode);
  };

  const stopAll = (signal: NodeJS.Signals) => {
    for (const timer of pendingRestarts.values()) clearTimeout(timer);
    pendingRestarts.clear();
    for (const child of children.values()) if (child.exitCode === null) child.kill(signal);
    setTimeout(() => {
      for (const child of children.values()) if (child.exitCode === null) child.kill("SIGKILL");
    }, 12_000).unref();
    exitWhenAllStopped();
  };

  const start = (spec: ProcessSpec, crashesInARow: number) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, spec.args, {
      env: { ...process.env, ...spec.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.set(spec.name, child);
    pipeWithPrefix(child.stdout!, spec.name, spec.color, process.stdout);
    pipeWithPrefix(child.stderr!, spec.name, spec.color, process.stderr);
    // "close", not "exit": a child's last lines (its goodbye, a crash's stack trace) may still be in
    // its pipes when it exits, and the launcher may exit next.
    child.on("close", (code, signal) => {
      children.delete(spec.name);
      if (stopping) return exitWhenAllStopped();
      if (code === CONFIG_ERROR_EXIT_CODE) {
        stopping = true;
        exitCode = 1;
        console.error(`${spec.name} cannot start (see its message above); stopping the others.`);
        return stopAll("SIGTERM");
      }
      const crashes = Date.now() - startedAt >= stableAfterMs ? 1 : crashesInARow + 1;
      const delayMs = Math.min(maxRestartDelayMs, firstRestartDelayMs * 2 ** (crashes - 1));
      console.error(
        `${spec.name} stopped (${describeExit(code, signal)}); restarting it in ${delayMs / 1000} s (crash ${crashes} in a row).`,
      );
      pendingRestarts.set(
        spec.name,
        setTimeout(() => {
          pendingRestarts.delete(spec.name);
          start(spec, crashes);
        }, delayMs),
      );
    });
  };

  for (const spec of specs) {
    if (spec.startWhenAnswering)
      void whenAnswering(spec.startWhenAnswering, 10_000).then(() => stopping || start(spec, 0));
    else start(spec, 0);
  }

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      stopAll("SIGTERM");
    });
  }
}

/** Runs one command to completion with inherited output; resolves with whether it succeeded. */
function succeeds(
  command: string,
  args: string[],
  { cwd, env }: { cwd?: string; env?: Record<string, string> } = {},
) {
  return new Promise<boolean>((resolve) => {
    const child = spawn(command, args, {
      stdio: "inherit",
      cwd,
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1", ...env },
    });
    child.on("error", (error) => {
      console.error(`${command} could not start: ${error.message}`);
      resolve(false);
    });
    child.on("exit", (code) => resolve(code === 0));
  });
}

/** Runs one command to completion with inherited output; exits the launcher if it fails. */
export async function runStep(
  description: string,
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
) {
  console.log(description);
  if (!(await succeeds(command, args, options))) {
    console.error(`${description} failed.`);
    process.exit(1);
  }
}

export interface Check {
  name: string;
  command: string;
  args: string[];
}

/** Runs the commands side by side to their ends; resolves with the names of those that failed. */
export async function runSideBySide(checks: Check[]): Promise<string[]> {
  const passed = await Promise.all(checks.map(({ command, args }) => succeeds(command, args)));
  return checks.filter((_, index) => !passed[index]).map((check) => check.name);
}

/** The environment variable that hands the specs to the fresh Node of `superviseInFreshNode`. */
const SPECS_VARIABLE = "STACKGATE_SUPERVISE";

/**
 * Runs `runTogether` for the whole run in a Node that loaded nothing else: this process is replaced
 * (same process id, so Ctrl-C and npm's signals still reach it) by a fresh Node running this file's
 * JavaScript, written to `supervisorFile`. What the launcher loaded before, the TypeScript stripper
 * (about 11 MiB) and the build steps' modules, is not kept for the hours the services run. Where
 * Node cannot replace a process (Windows), it supervises from this process.
 */
export function superviseInFreshNode(
  specs: ProcessSpec[],
  supervisorFile: string,
  options: SupervisorOptions = {},
) {
  if (typeof process.execve !== "function" || process.platform === "win32")
    return runTogether(specs, options);
  const source = stripTypeScriptTypes(readFileSync(fileURLToPath(import.meta.url), "utf8"));
  const program = `${source}
const handedOver = JSON.parse(process.env.${SPECS_VARIABLE});
delete process.env.${SPECS_VARIABLE};
runTogether(handedOver.specs, handedOver.options);
`;
  // The same program for every launcher, so launchers starting at once may all write it: whole, by rename.
  mkdirSync(dirname(supervisorFile), { recursive: true });
  const written = `${supervisorFile}.${process.pid}`;
  writeFileSync(written, program);
  renameSync(written, supervisorFile);
  // Sparkplug at most: the supervisor mostly waits, and Maglev's and TurboFan's memory is not worth it.
  process.execve(process.execPath, [process.execPath, "--max-opt=1", supervisorFile], {
    ...process.env,
    [SPECS_VARIABLE]: JSON.stringify({ specs, options }),
  });
}

/**
 * The supervisor of the one process, in the POSIX shell: it waits, restarts the process after a crash
 * (the wait doubling while it keeps crashing, from `first` up to `max` ms, back to `first` after a run
 * of `stable` s), stops when it exits with CONFIG_ERROR_EXIT_CODE, and passes SIGTERM and SIGINT on
 * (exiting with the process's code once it stopped). Its arguments: first, max, stable, name, then
 * the command.
 */
const SHELL_SUPERVISOR = `
first=$1 max=$2 stable=$3 name=$4
shift 4
crashes=0 child= stopping=
trap 'stopping=1; [ -n "$child" ] && kill -TERM "$child" 2>/dev/null' TERM INT
while :; do
  started=$(date +%s)
  "$@" &
  child=$!
  while :; do
    # (no "Killed" line from the shell: the line below says what happened)
    wait "$child" 2>/dev/null
    code=$?
    kill -0 "$child" 2>/dev/null || break
  done
  child=
  [ -n "$stopping" ] && exit "$code"
  if [ "$code" -eq ${CONFIG_ERROR_EXIT_CODE} ]; then
    echo "$name cannot start (see its message above)." >&2
    exit 1
  fi
  if [ $(($(date +%s) - started)) -ge "$stable" ]; then crashes=1; else crashes=$((crashes + 1)); fi
  delay=$first step=1
  while [ "$step" -lt "$crashes" ] && [ "$delay" -lt "$max" ]; do delay=$((delay * 2)) step=$((step + 1)); done
  [ "$delay" -gt "$max" ] && delay=$max
  if [ "$code" -gt 128 ]; then how="killed by SIG$(kill -l $((code - 128)))"; else how="exit code $code"; fi
  seconds=$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))
  echo "$name stopped ($how); restarting it in $seconds s (crash $crashes in a row)." >&2
  sleep "$seconds" &
  wait $! 2>/dev/null
  [ -n "$stopping" ] && exit 0
done
`;

/**
 * Runs one process for the whole run under a supervisor that costs next to nothing: this process is
 * replaced (same process id, so Ctrl-C and npm's signals still reach it) by the POSIX shell running
 * SHELL_SUPERVISOR, about 1 MiB where a Node supervisor keeps 40 or more. The process's output goes
 * straight to this one's (one process: no prefix to add). Where Node cannot replace a process or
 * there is no /bin/sh (Windows), it supervises from this process.
 */
export function superviseInShell(
  spec: ProcessSpec,
  { firstRestartDelayMs = 1000, maxRestartDelayMs = 30_000, stableAfterMs = 60_000 }: SupervisorOptions = {},
) {
  const shell = "/bin/sh";
  if (typeof process.execve !== "function" || process.platform === "win32" || !existsSync(shell))
    return runTogether([spec], { firstRestartDelayMs, maxRestartDelayMs, stableAfterMs });
  const whole = (ms: number) => String(Math.max(1, Math.round(ms)));
  process.execve(
    shell,
    [
      shell,
      "-c",
      SHELL_SUPERVISOR,
      // $0: what the process list shows for the supervisor.
      `${spec.name}-supervisor`,
      whole(firstRestartDelayMs),
      whole(maxRestartDelayMs),
      String(Math.max(1, Math.round(stableAfterMs / 1000))),
      spec.name,
      process.execPath,
      ...spec.args,
    ],
    { ...process.env, ...spec.env } as Record<string, string>,
  );
}
