import { type ChildProcess, spawn } from "node:child_process";

export interface ProcessSpec {
  name: string;
  args: string[];
  env?: Record<string, string | undefined>;
  color: number;
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

/**
 * Runs the processes together: Ctrl-C or SIGTERM stops them all; when one dies on its
 * own, the rest are stopped and we exit non-zero.
 */
export function runTogether(specs: ProcessSpec[]) {
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  let exitCode = 0;

  const stopAll = (signal: NodeJS.Signals) => {
    for (const child of children.values()) if (child.exitCode === null) child.kill(signal);
    setTimeout(() => {
      for (const child of children.values()) if (child.exitCode === null) child.kill("SIGKILL");
    }, 12_000).unref();
  };

  for (const spec of specs) {
    const child = spawn(process.execPath, spec.args, {
      env: { ...process.env, ...spec.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.set(spec.name, child);
    pipeWithPrefix(child.stdout!, spec.name, spec.color, process.stdout);
    pipeWithPrefix(child.stderr!, spec.name, spec.color, process.stderr);
    child.on("exit", (code, signal) => {
      children.delete(spec.name);
      if (!stopping) {
        stopping = true;
        exitCode = 1;
        console.error(`\n${spec.name} exited (${signal ?? `code ${code}`}); stopping the others.`);
        stopAll("SIGTERM");
      }
      if (children.size === 0) process.exit(exitCode);
    });
  }

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      stopAll("SIGTERM");
    });
  }
}

/** Runs one command to completion with inherited output; exits the launcher if it fails. */
export async function runStep(description: string, command: string, args: string[], cwd?: string) {
  console.log(description);
  const child = spawn(command, args, {
    stdio: "inherit",
    cwd,
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" },
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) {
    console.error(`${description} failed (exit ${code}).`);
    process.exit(1);
  }
}
