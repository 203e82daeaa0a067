import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { freePort } from "@stackgate/simulators";

/** For tests: the real backend (main.ts) as a child process, to be signalled or killed. */
export interface BackendProcess {
  url: string;
  child: ChildProcess;
  /** What the process wrote to stderr so far. */
  stderr: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Starts main.ts over `dataDir` on `port` (by default a free one) and resolves once it answers `/doc`. */
export async function startBackendProcess({
  dataDir,
  adminPassword,
  env = {},
  port = 0,
}: {
  dataDir: string;
  adminPassword: string;
  env?: Record<string, string>;
  port?: number;
}): Promise<BackendProcess> {
  port ||= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [join(import.meta.dirname, "../main.ts")], {
    env: {
      ...process.env,
      NODE_ENV: "test",
      BACKEND_PORT: String(port),
      DATA_DIR: dataDir,
      APP_URL: url,
      BETTER_AUTH_SECRET: "backend-process-test-secret-long-enough-1234567890",
      SEED_ADMIN_PASSWORD: adminPassword,
      LOG_LEVEL: "warn",
      SCANNER_SWEEP_DELAY_SECONDS: "3600",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  // "close", not "exit": what the process wrote last may still be in its pipes when it exits.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  // Readiness probe: the port answers once start-up (migrations, recovery) is done. That takes 3-4 s
  // here, and more than 20 s under a load of 10 while other tests start backends too.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`backend exited (${exitCode}) during start: ${stderr}`);
    try {
      await fetch(`${url}/doc`);
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`backend did not start within 60 s: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { url, child, stderr: () => stderr, exited };
}

/** Signs in as the seeded admin and returns the Cookie header value. */
export async function signInAdmin(url: string, password: string) {
  const response = await fetch(`${url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email: "admin@stackgate.local", password }),
  });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status}`);
  return response.headers
    .getSetCookie()
    .map((value) => value.split(";")[0])
    .join("; ");
}

/** A POST with a JSON body from the app's own origin. */
export const postJson = (url: string, body: unknown, headers: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", origin: new URL(url).origin, ...headers },
    body: JSON.stringify(body),
  });
