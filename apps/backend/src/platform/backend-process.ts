import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

const backendMain = join(import.meta.dirname, "../main.ts");
export const PROCESS_APP_URL = "http://localhost:8080";

/**
 * The real backend as its own process (`node apps/backend/src/main.ts`), with only the given
 * environment beside PATH. `listening` resolves with its URL once it logs "backend listening", or
 * with null when it exits first; `exited` with its exit code.
 */
export function spawnBackend(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [backendMain], {
    env: {
      PATH: process.env.PATH ?? "",
      APP_URL: PROCESS_APP_URL,
      BACKEND_PORT: "0",
      LOG_LEVEL: "info",
      SCANNER_SWEEP_DELAY_SECONDS: "3600",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
  });
  // "close", not "exit": what the process wrote last may still be in its pipes when it exits.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const listening = new Promise<string | null>((resolve) => {
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
      const address = /"address":"(http:\/\/[^"]+)"[^\n]*"backend listening"/.exec(stdout)?.[1];
      if (address) resolve(address);
    });
    void exited.then(() => resolve(null));
  });
  return {
    listening,
    exited,
    output: () => ({ stdout, stderr }),
    /** Stops it with SIGTERM, as a supervisor would, and waits for the exit. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** The first password the start-up banner announced, if it announced one. */
export const announcedPassword = (stdout: string) => /password: +(\S+)/.exec(stdout)?.[1];
