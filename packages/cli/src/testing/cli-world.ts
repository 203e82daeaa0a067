// The world of the CLI's tests: the real backend (over a fresh SQLite file) connected to the Komodo
// simulator, the stand-in trivy for scans, the real gateway in front of it, Debian's nginx in front
// of that with a 5 s read timeout, an API key, and the CLI and the action built to their single
// files and run as child processes, as a pipeline runs them. The dashboard's server is a stand-in
// answering every page with the sign-in page (what a wrong STACKGATE_URL path reaches).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type KomodoSimulator,
  type StackSeed,
  standInTrivyPath,
  startKomodoSimulator,
} from "@stackgate/simulators";
import { afterAll, beforeAll } from "vitest";
import { parse } from "yaml";
import { startTestBackend, type TestBackend } from "../../../../apps/backend/src/testing/harness.ts";
import { type Nginx, startNginx } from "../../../../apps/backend/src/testing/nginx.ts";
import { startServingGateway } from "../../../../apps/gateway/src/testing.ts";
import { bundleCli } from "../bundle.ts";

/** A run's id (a UUID), as a regular expression's source. */
export const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/** The id of the run an outcome line names: `Succeeded in 0:03: web · redeploy (run <id>)`. */
export function runIdIn(text: string): string {
  const id = new RegExp(`\\(run (${UUID})\\)`).exec(text)?.[1];
  if (!id) throw new Error(`No run id in: ${text}`);
  return id;
}

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface ActionRun extends CliRun {
  /** The step's outputs (GITHUB_OUTPUT), by name. */
  outputs: Record<string, string>;
  /** The job summary it wrote (GITHUB_STEP_SUMMARY). */
  summary: string;
}

export interface HistoryRow {
  id: string;
  success: boolean;
  message: string;
  actor: string;
}

export interface CliWorld {
  komodo: KomodoSimulator;
  app: TestBackend;
  /** The gateway's address (the backend behind it); nginx is in front of it. */
  gatewayUrl: string;
  nginx: Nginx;
  cookie: string;
  key: string;
  /** The built files: `stackgate.mjs` and `action.mjs`, in a folder outside the repository. */
  bundleDir: string;
  /** Everything every run printed, to prove the keys never appear in it. */
  printed: CliRun[];
  /** Runs the built CLI; `env` is added to a clean environment holding STACKGATE_URL (nginx) and the key. */
  run(args: string[], options?: RunOptions): Promise<CliRun>;
  /** Runs a built file (the CLI or the action) with exactly this environment. */
  runFile(
    file: string,
    args: string[],
    options: RunOptions & { env: Record<string, string> },
  ): Promise<CliRun>;
  /**
   * Runs the GitHub Action's entry point as the runner does: inputs as INPUT_* (by default action
   * pull-redeploy, nginx's address, the world's key, timeout 2m, no gate), outputs and summary to files.
   */
  runAction(inputs: Record<string, string>, options?: RunOptions): Promise<ActionRun>;
  /** Runs the GitLab CI template's job script with sh, the built CLI as `stackgate` on the PATH. */
  runGitlabJob(variables: Record<string, string>): Promise<{ exitCode: number; dotenv: string }>;
  /** The finished deploys of a stack, newest first, as the admin reads them. */
  historyOf(stack: string): Promise<HistoryRow[]>;
  /** A new API key of the admin's with this scope. */
  scopedKey(name: string, scope: object): Promise<string>;
  /** How many execute calls (deploy steps) Komodo received for a stack. */
  executes(stack: string): number;
  /** Stops everything; fails when anything a run printed holds an API key. */
  close(): Promise<void>;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** Called with the stderr seen so far, after each chunk, and the process (to signal it). */
  onStderr?: (stderrSoFar: string, child: ChildProcess) => void;
  /** The Node.js that runs the file; default the one running the tests. */
  node?: string;
}

/** The shell script of the GitLab CI template's hidden job, as a runner would run it. */
const gitlabScript = (): string =>
  parse(readFileSync(join(import.meta.dirname, "../../../../ci/gitlab/stackgate.gitlab-ci.yml"), "utf8"))[
    ".stackgate-deploy"
  ].script.join("\n");

/** Reads GITHUB_OUTPUT's `name<<delimiter` blocks. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const match = /^([\w-]+)<<(.+)$/.exec(lines[index]!);
    if (!match) continue;
    const value: string[] = [];
    for (index++; lines[index] !== match[2]; index++) value.push(lines[index]!);
    outputs[match[1]!] = value.join("\n");
  }
  return outputs;
}

export interface CliWorldOptions {
  stacks: StackSeed[];
  /**
   * The backend's environment beside the world's. By default no deploy is watched after it succeeded
   * (SETTLE_SECONDS 0: a pipeline in CI would wait out the window); a window is read every 0.25 s.
   */
  backendEnv?: Record<string, string>;
}

export async function startCliWorld({ stacks, backendEnv = {} }: CliWorldOptions): Promise<CliWorld> {
  const bundleDir = mkdtempSync(join(tmpdir(), "stackgate-cli-"));
  await bundleCli(bundleDir);
  const komodo = await startKomodoSimulator({ stacks });
  const app = await startTestBackend({
    env: { TRIVY_BIN: standInTrivyPath, SETTLE_SECONDS: "0", SETTLE_CHECK_SECONDS: "0.25", ...backendEnv },
  });
  const cookie = await app.signIn();
  const { key } = await app.createApiKey(cookie, "release-pipeline");
  await app.connectKomodo(cookie, komodo);
  const frontend = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(
      "<!doctype html><html><head><title>Sign in · Stackgate</title></head><body>Sign in</body></html>",
    );
  });
  await new Promise<void>((resolve) => frontend.listen(0, "127.0.0.1", resolve));
  const gateway = await startServingGateway({
    BACKEND_URLS: app.url,
    FRONTEND_URL: `http://127.0.0.1:${(frontend.address() as AddressInfo).port}`,
  });
  const nginx = await startNginx({ upstream: gateway.url });
  const printed: CliRun[] = [];

  const runFile: CliWorld["runFile"] = (file, args, { env, onStderr, node = process.execPath }) =>
    new Promise((resolve, reject) => {
      const child = spawn(node, [join(bundleDir, file), ...args], {
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
        onStderr?.(stderr, child);
      });
      child.on("error", reject);
      child.on("close", (code, signal) => {
        const result = { exitCode: code ?? (signal ? -1 : -2), stdout, stderr };
        printed.push(result);
        resolve(result);
      });
    });

  return {
    komodo,
    app,
    gatewayUrl: gateway.url,
    nginx,
    cookie,
    key,
    bundleDir,
    printed,
    runFile,
    run: (args, options = {}) =>
      runFile("stackgate.mjs", args, {
        ...options,
        env: { STACKGATE_URL: nginx.url, STACKGATE_API_KEY: key, ...options.env },
      }),
    async runAction(inputs, options = {}) {
      const stamp = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const outputFile = join(bundleDir, `output-${stamp}`);
      const summaryFile = join(bundleDir, `summary-${stamp}`);
      writeFileSync(outputFile, "");
      writeFileSync(summaryFile, "");
      const env: Record<string, string> = {
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        CI: "true",
        ...options.env,
      };
      const all = {
        action: "pull-redeploy",
        url: nginx.url,
        "api-key": key,
        timeout: "2m",
        "fail-on": "",
        ...inputs,
      };
      for (const [name, value] of Object.entries(all)) env[`INPUT_${name.toUpperCase()}`] = value;
      const result = await runFile("action.mjs", [], { ...options, env });
      return {
        ...result,
        outputs: parseOutputs(readFileSync(outputFile, "utf8")),
        summary: readFileSync(summaryFile, "utf8"),
      };
    },
    async runGitlabJob(variables) {
      const dir = mkdtempSync(join(bundleDir, "gitlab-"));
      const shim = join(dir, "stackgate");
      writeFileSync(
        shim,
        `#!/bin/sh\nexec "${process.execPath}" "${join(bundleDir, "stackgate.mjs")}" "$@"\n`,
      );
      chmodSync(shim, 0o755);
      const env = {
        PATH: `${dir}:${join(process.execPath, "..")}:${process.env.PATH}`,
        STACKGATE_URL: nginx.url,
        STACKGATE_API_KEY: key,
        STACKGATE_ACTION: "pull-redeploy",
        STACKGATE_TIMEOUT: "2m",
        STACKGATE_FAIL_ON: "",
        ...variables,
      };
      const exitCode = await new Promise<number>((resolve) =>
        execFile("sh", ["-c", gitlabScript()], { cwd: dir, env }, (error, stdout, stderr) => {
          printed.push({ exitCode: 0, stdout, stderr });
          resolve(error ? Number(error.code) : 0);
        }),
      );
      return { exitCode, dotenv: readFileSync(join(dir, "stackgate.env"), "utf8") };
    },
    async historyOf(stack) {
      const answer = await app.request(`/api/v0/history?stack=${stack}`, { headers: { cookie } });
      return answer.json.history;
    },
    async scopedKey(name, scope) {
      const created = await app.request("/api/v0/apikeys", {
        method: "POST",
        headers: { cookie },
        json: { name, scope },
      });
      if (created.status !== 200) throw new Error(`key creation failed: ${created.status} ${created.text}`);
      return created.json.key as string;
    },
    executes: (stack) =>
      komodo.calls.filter(
        (call) => call.api === "execute" && JSON.stringify(call.params).includes(`"${stack}"`),
      ).length,
    async close() {
      const leaked = printed.find(({ stdout, stderr }) => /sg_[\w-]{20,}/.test(stdout + stderr));
      await nginx.stop();
      gateway.child.kill("SIGKILL");
      await gateway.ended;
      frontend.closeAllConnections();
      await new Promise((resolve) => frontend.close(resolve));
      await app.close();
      await komodo.close();
      rmSync(bundleDir, { recursive: true, force: true });
      if (leaked)
        throw new Error(`A run printed an API key: ${JSON.stringify(leaked).replace(/sg_[\w-]+/g, "sg_…")}`);
    },
  };
}

/**
 * The world of a test file: started before its tests, closed after them (failing when a run printed
 * an API key). The answer stands for the started world.
 */
export function useCliWorld(options: CliWorldOptions): CliWorld {
  let started: CliWorld | undefined;
  beforeAll(async () => {
    started = await startCliWorld(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as CliWorld, {
    get(_target, property) {
      if (!started) throw new Error("The CLI world is not started yet: use it inside tests");
      return Reflect.get(started, property);
    },
  });
}
