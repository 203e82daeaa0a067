import { spawn } from "node:child_process";
import { join } from "node:path";

/**
 * For tests: starts the gateway's entry point (main.ts) with `env` only (and PATH), and resolves
 * with its exit code and what it printed once it ends.
 */
export function startGatewayProcess(env: Record<string, string>) {
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
  return new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, output: output.trim() })),
  );
}
