import { spawn } from "node:child_process";
import { join } from "node:path";
import { freePort } from "@stackgate/simulators";

/**
 * For tests: starts the gateway's entry point (main.ts) with `env` only (and PATH), and resolves
 * with its exit code and what it printed once it ends.
 */
export function startGatewayProcess(env: Record<string, string>) {
  return spawnGateway(env).ended;
}

/** For tests: the gateway's entry point on a free port, resolved once its `/health` answers. */
export async function startServingGateway(env: Record<string, string>) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const gateway = spawnGateway({ ...env, PORT: String(port) });
  let ended: { code: number | null; output: string } | undefined;
  void gateway.ended.then((result) => {
    ended = result;
  });
  for (
    let attempt = 0;
    !(await fetch(`${url}/health`).then(
      (answer) => answer.ok,
      () => false,
    ));
    attempt++
  ) {
    if (ended) throw new Error(`the gateway exited (${ended.code}) during start: ${ended.output}`);
    if (attempt > 100) throw new Error(`the gateway did not start: ${gateway.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, ...gateway };
}

function spawnGateway(env: Record<string, string>) {
  const child = spawn(process.execPath, [join(import.meta.dirname, "main.ts")], {
    env: { PATH: process.env.PATH ?? "", GATEWAY_HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  const ended = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, output: output.trim() })),
  );
  return { child, output: () => output, ended };
}
