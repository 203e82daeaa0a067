import { runCli } from "./cli.ts";
import { EXIT, type StopSignal } from "./exit.ts";

// SIGINT and SIGTERM stop following a run: the command says which run goes on, and exits 130 or 143.
// A second one ends the process at once.
const stop = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as StopSignal[])
  process.on(signal, () => {
    if (stop.signal.aborted) process.exit(EXIT[signal]);
    stop.abort(signal);
  });
// Whoever reads the output may be gone (a cancelled CI step): nothing is left to tell them.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });

const exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stop: stop.signal,
});
process.exitCode = exitCode;
// An idle keep-alive socket must not hold the pipeline's step open once the outcome is known.
setTimeout(() => process.exit(exitCode), 2_000).unref();
