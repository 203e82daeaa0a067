import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { type KomodoSimulatorOptions, startKomodoSimulator } from "@stackgate/simulators";
import { createBackend } from "../app.ts";
import { type Clock, systemClock } from "../platform/clock.ts";
import { type Config, loadConfig } from "../platform/config.ts";
import { createLogger } from "../platform/logger.ts";
import { databaseNoteOf } from "./database.ts";
import { createTestDatabase, testPostgresServer } from "./postgres.ts";

export const ADMIN = { email: "admin@example.test", password: "canary-Password-7f3a9", name: "Ada Admin" };
export const APP_ORIGIN = "http://localhost:8080";
/** Every test backend's BETTER_AUTH_SECRET: backends sharing a database must share it. */
export const TEST_AUTH_SECRET = "test-secret-that-is-long-enough-for-better-auth";

export interface TestBackendOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Reuse a data directory, e.g. to restart over the same database. */
  dataDir?: string;
  /** Settings that no variable sets, such as the alert retries' delays. */
  config?: Partial<Config>;
}

/**
 * In the "postgres" test project, each data directory's database: a new one on the test server,
 * noted in the directory so that a backend restarted over it finds the same data. Elsewhere none
 * (SQLite in the data directory).
 */
async function postgresDatabaseFor(dataDir: string): Promise<Record<string, string>> {
  const server = testPostgresServer();
  if (!server) return {};
  const note = databaseNoteOf(dataDir);
  if (!existsSync(note)) writeFileSync(note, await createTestDatabase(server));
  return { DATABASE_URL: readFileSync(note, "utf8") };
}

/**
 * Starts the real backend on a free port over a fresh database (SQLite, or PostgreSQL in the
 * "postgres" test project), capturing its log lines so tests can read them (and prove secrets
 * never reach them).
 */
export async function startTestBackend({
  env = {},
  clock = systemClock,
  dataDir,
  config: tuned = {},
}: TestBackendOptions = {}) {
  const directory = dataDir ?? mkdtempSync(join(tmpdir(), "stackgate-test-"));
  const logLines: string[] = [];
  const logger = createLogger("debug", { write: (line: string) => void logLines.push(line) });
  const loaded = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: directory,
    APP_URL: APP_ORIGIN,
    BETTER_AUTH_SECRET: TEST_AUTH_SECRET,
    SEED_ADMIN_EMAIL: ADMIN.email,
    SEED_ADMIN_PASSWORD: ADMIN.password,
    SEED_ADMIN_NAME: ADMIN.name,
    ...(await postgresDatabaseFor(directory)),
    ...env,
  });
  const config = { ...loaded, ...tuned };
  const backend = await createBackend({ config, logger, clock });
  const server = serve({ fetch: backend.app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** Every response body the test has seen, for leak checks. */
  const responseBodies: string[] = [];

  async function request(path: string, init: RequestInit & { json?: unknown } = {}) {
    const headers = new Headers(init.headers);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    if (body !== undefined && !headers.has("origin")) headers.set("origin", APP_ORIGIN);
    const response = await fetch(url + path, { ...init, headers, body });
    const text = await response.text();
    responseBodies.push(text);
    // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back and assert on it
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /** Signs in and returns the Cookie header value of the new session. */
  async function signIn(email = ADMIN.email, password = ADMIN.password) {
    const response = await request("/api/auth/sign-in/email", { method: "POST", json: { email, password } });
    if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${response.text}`);
    return response.headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0])
      .join("; ");
  }

  async function addUser(email: string, password: string, name: string) {
    const context = await backend.auth.$context;
    const user = await context.internalAdapter.createUser(
      { email, name, emailVerified: true },
      { method: "admin" },
    );
    await context.internalAdapter.linkAccount({
      userId: user.id,
      providerId: "credential",
      accountId: user.id,
      password: await context.password.hash(password),
    });
  }

  async function createApiKey(cookie: string, name = "ci-pipeline") {
    const created = await request("/api/v0/apikeys", { method: "POST", headers: { cookie }, json: { name } });
    if (created.status !== 200) throw new Error(`key creation failed: ${created.status} ${created.text}`);
    return created.json as { id: string; key: string; name: string; start: string };
  }

  /** Saves a Komodo connection (e.g. to a simulator) as the signed-in person would. */
  async function connectKomodo(cookie: string, komodo: { url: string; key: string; secret: string }) {
    const saved = await request("/api/v0/deploy/credentials", {
      method: "POST",
      headers: { cookie },
      json: { name: "komodo", url: komodo.url, key: komodo.key, secret: komodo.secret },
    });
    if (saved.status !== 200) throw new Error(`connecting failed: ${saved.status} ${saved.text}`);
    return saved.json;
  }

  let stopped: Promise<void> | undefined;
  return {
    url,
    dataDir: directory,
    connectKomodo,
    config,
    backend,
    logLines,
    responseBodies,
    request,
    signIn,
    addUser,
    createApiKey,
    /** Stops the backend (once, however often it is called); removes its data unless `keepData`. */
    async close({ keepData = false } = {}) {
      stopped ??= (async () => {
        (server as import("node:http").Server).closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await backend.close();
      })();
      await stopped;
      if (!keepData) rmSync(directory, { recursive: true, force: true });
    },
  };
}

export type TestBackend = Awaited<ReturnType<typeof startTestBackend>>;

/**
 * The usual world of an upstream test: a Komodo simulator, the backend connected to it, the
 * admin signed in (`cookie`) and one API key (`key`, named `keyName`).
 */
export async function startConnectedBackend({
  komodo: simulatorOptions,
  keyName = "ci-pipeline",
  ...backendOptions
}: TestBackendOptions & { komodo: KomodoSimulatorOptions; keyName?: string }) {
  const komodo = await startKomodoSimulator(simulatorOptions);
  const app = await startTestBackend(backendOptions);
  const cookie = await app.signIn();
  const { key } = await app.createApiKey(cookie, keyName);
  await app.connectKomodo(cookie, komodo);
  return {
    komodo,
    app,
    cookie,
    key,
    async close() {
      await app.close();
      await komodo.close();
    },
  };
}
