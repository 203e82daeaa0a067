// The world of the CLI's tests: the real backend (over a fresh SQLite file) connected to the Komodo
// simulator, the stand-in trivy for scans, Debian's nginx in front with a 5 s read timeout, an API
// key, and the CLI and the action built to their single files and run as child processes.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type KomodoSimulator,
  type StackSeed,
  standInTrivyPath,
  startKomodoSimulator,
} from "@stackgate/simulators";
import { startTestBackend, type TestBackend } from "../../../../apps/backend/src/testing/harness.ts";
import { type Nginx, startNginx } from "../../../../apps/backend/src/testing/nginx.ts";
import { bundleCli } from "../bundle.ts";

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface CliWorld {
  komodo: KomodoSimulator;
  app: TestBackend;
  nginx: Nginx;
  cookie: string;
  key: string;
  /** The built files: `stackgate.mjs` and `action.mjs`. */
  bundleDir: string;
  /** Runs the built CLI; `env` is added to a clean environment holding STACKGATE_URL (nginx) and the key. */
  run(args: string[], options?: RunOptions): Promise<CliRun>;
  /** Runs a built file (the CLI or the action) with exactly this environment. */
  runFile(
    file: string,
    args: string[],
    options: RunOptions & { env: Record<string, string> },
  ): Promise<CliRun>;
  close(): Promise<void>;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** Called with the stderr seen so far, after each chunk. */
  onStderr?: (stderrSoFar: string) => void;
}

export async function startCliWorld({ stacks }: { stacks: StackSeed[] }): Promise<CliWorld> {
  const bundleDir = mkdtempSync(join(tmpdir(), "stackgate-cli-"));
  await bundleCli(bundleDir);
  const komodo = await startKomodoSimulator({ stacks });
  const app = await startTestBackend({ env: { TRIVY_BIN: standInTrivyPath } });
  const cookie = await app.signIn();
  const { key } = await app.createApiKey(cookie, "release-pipeline");
  await app.connectKomodo(cookie, komodo);
  const nginx = await startNginx({ upstream: app.url });

  const runFile: CliWorld["runFile"] = (file, args, { env, onStderr }) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(bundleDir, file), ...args], {
        env: { PATH: process.env.PATH ?? "", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        onStderr?.(stderr);
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ exitCode: code ?? -1, stdout, stderr }));
    });

  return {
    komodo,
    app,
    nginx,
    cookie,
    key,
    bundleDir,
    runFile,
    run: (args, options = {}) =>
      runFile("stackgate.mjs", args, {
        ...options,
        env: { STACKGATE_URL: nginx.url, STACKGATE_API_KEY: key, ...options.env },
      }),
    async close() {
      await nginx.stop();
      await app.close();
      await komodo.close();
      rmSync(bundleDir, { recursive: true, force: true });
    },
  };
}
