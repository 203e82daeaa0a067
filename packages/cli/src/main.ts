import { runCli } from "./cli.ts";

const exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
process.exitCode = exitCode;
// An idle keep-alive socket must not hold the pipeline's step open once the outcome is known.
setTimeout(() => process.exit(exitCode), 2_000).unref();
