/**
 * A Trivy server this process starts and keeps running (`TRIVY_SERVER_START=true`, which the
 * `stackgate` image sets): the one container carries its own scanner, where compose runs Trivy's
 * image as a service of its own. It listens where `TRIVY_SERVER_URL` points (127.0.0.1:4954 by
 * default), keeps its vulnerability database in `TRIVY_CACHE_DIR` (by default `$DATA_DIR/trivy-cache`,
 * in the data volume, so that a restarted container does not download it again), and sees only the
 * environment the scans' Trivy sees. Its lines go to this process's error output, prefixed `trivy |`.
 * One that exits is started again (1 s, doubling to 60 s while it keeps exiting); while it is down
 * or still downloading its database, scans wait as queued, as with any Trivy server that does not
 * answer. A missing executable is said once, and not tried again.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { TRIVY_ENV_NAMES } from "./trivy-runner.ts";

const FIRST_RESTART_MS = 1000;
const MAX_RESTART_MS = 60_000;
/** A server that ran this long is starting afresh: its next restart waits the first delay again. */
const STABLE_AFTER_MS = 60_000;
const STOP_GRACE_MS = 3000;

export interface TrivyServerOptions {
  /** The Trivy executable (TRIVY_BIN). */
  bin: string;
  /** Where the scans look for it (TRIVY_SERVER_URL): it listens on this URL's host and port. */
  serverUrl: string;
  cacheDir: string;
  /** Where its lines go (default: this process's standard error). */
  output?: NodeJS.WritableStream;
  env?: Readonly<Record<string, string | undefined>>;
}

export function startTrivyServer({
  bin,
  serverUrl,
  cacheDir,
  output = process.stderr,
  env = process.env,
}: TrivyServerOptions) {
  const listen = new URL(serverUrl).host;
  const childEnv: Record<string, string> = { NO_COLOR: "1" };
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && (TRIVY_ENV_NAMES.has(name) || name.startsWith("STANDIN_TRIVY_")))
      childEnv[name] = value;
  mkdirSync(cacheDir, { recursive: true });

  let child: ChildProcess | undefined;
  let stopping = false;
  let crashes = 0;
  let restart: NodeJS.Timeout | undefined;
  const say = (line: string) => output.write(`trivy    | ${line}\n`);

  const start = () => {
    const startedAt = Date.now();
    const args = [
      "server",
      "--listen",
      listen,
      "--cache-dir",
      cacheDir,
      "--skip-version-check",
      "--disable-telemetry",
    ];
    const running = spawn(bin, args, { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    child = running;
    let pending = "";
    const lines = (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      const complete = pending.split("\n");
      pending = complete.pop() ?? "";
      for (const line of complete) if (line.trim()) say(line);
    };
    running.stdout!.on("data", lines);
    running.stderr!.on("data", lines);
    let failedToStart = false;
    running.once("error", (error: NodeJS.ErrnoException) => {
      failedToStart = true;
      say(
        `the Trivy server cannot be started (${error.code ?? error.message}): install Trivy or set TRIVY_BIN (${bin}); scans wait until a Trivy server answers at ${serverUrl}`,
      );
    });
    running.once("close", (code, signal) => {
      child = undefined;
      if (stopping || failedToStart) return;
      crashes = Date.now() - startedAt >= STABLE_AFTER_MS ? 1 : crashes + 1;
      const delay = Math.min(MAX_RESTART_MS, FIRST_RESTART_MS * 2 ** (crashes - 1));
      say(
        `the Trivy server stopped (${signal ? `killed by ${signal}` : `exit code ${code}`}); starting it again in ${delay / 1000} s`,
      );
      restart = setTimeout(start, delay);
      restart.unref();
    });
  };
  start();
  // A process that ends without stopping it (an uncaught exception) takes its server along.
  const orphaned = () => child?.kill("SIGTERM");
  process.once("exit", orphaned);

  return {
    /** The server's process id, while it runs. */
    get pid() {
      return child?.pid;
    },
    /** Stops it (SIGTERM, then SIGKILL after a few seconds); resolves once it is gone. */
    async stop() {
      stopping = true;
      clearTimeout(restart);
      process.off("exit", orphaned);
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => running.once("close", () => resolve()));
      running.kill("SIGTERM");
      const forced = setTimeout(() => running.kill("SIGKILL"), STOP_GRACE_MS);
      await gone;
      clearTimeout(forced);
    },
  };
}

export type TrivyServer = ReturnType<typeof startTrivyServer>;
