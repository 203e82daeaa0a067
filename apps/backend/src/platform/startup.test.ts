import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UNREACHABLE_PORT } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPostgresPrograms, type PostgresServer, startPostgres } from "../testing/postgres.ts";
import { announcedPassword, PROCESS_APP_URL, spawnBackend } from "./backend-process.ts";

const scratch = mkdtempSync(join(tmpdir(), "stackgate-startup-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let serial = 0;
const freshDir = () => join(scratch, `run-${++serial}`, "data");

/** sysexits' EX_CONFIG, for a variable that cannot work as set; other failures exit 1. */
const CONFIG_ERROR = 78;

/** Starts the backend expecting it to fail with `exitCode`, and returns what it wrote to stderr. */
async function failedStart(env: Record<string, string>, exitCode = 1) {
  const backend = spawnBackend(env);
  expect(await backend.exited).toBe(exitCode);
  return backend.output();
}

function expectOneLine(stderr: string, ...mentions: string[]) {
  const lines = stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  for (const mention of mentions) expect(lines[0]).toContain(mention);
  expect(stderr).not.toMatch(/^\s+at /m);
}

async function occupiedPort() {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

async function signIn(url: string, email: string, password: string) {
  const response = await fetch(`${url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: PROCESS_APP_URL },
    body: JSON.stringify({ email, password }),
  });
  return response.status;
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe("the first start forgives", () => {
  it("announces the generated password again after a start that failed on a taken port, until the first sign-in", async () => {
    const dataDir = freshDir();
    const { server, port } = await occupiedPort();
    try {
      const first = await failedStart({ DATA_DIR: dataDir, BACKEND_PORT: String(port) });
      expectOneLine(first.stderr, "BACKEND_PORT", String(port), "already in use");
      const password = announcedPassword(first.stdout);
      expect(password).toBeDefined();

      const second = spawnBackend({ DATA_DIR: dataDir });
      const url = await second.listening;
      expect(url).not.toBeNull();
      expect(announcedPassword(second.output().stdout)).toBe(password);
      expect(second.output().stdout).not.toMatch(/"msg":"[^"]*password/i);
      expect(await signIn(url!, "admin@stackgate.local", password!)).toBe(200);
      expect(await second.stop()).toBe(0);

      const third = spawnBackend({ DATA_DIR: dataDir });
      expect(await third.listening).not.toBeNull();
      expect(await third.stop()).toBe(0);
      expect(third.output().stdout).not.toContain("First sign-in");
      expect(third.output().stdout).not.toContain(password);
    } finally {
      server.close();
    }
  }, 90_000);

  it("creates DATA_DIR 0700 and every file in it 0600, the database's WAL and shared memory included", async () => {
    const dataDir = freshDir();
    const backend = spawnBackend({ DATA_DIR: dataDir });
    expect(await backend.listening).not.toBeNull();
    try {
      expect(mode(dataDir)).toBe(0o700);
      for (const file of ["db.sqlite", "db.sqlite-wal", "db.sqlite-shm", "auth-secret", "first-sign-in"]) {
        expect([file, mode(join(dataDir, file))]).toEqual([file, 0o600]);
      }
    } finally {
      await backend.stop();
    }
  });
});

describe("every start-up failure is one line naming what to fix", () => {
  it("DATA_DIR that is a file", async () => {
    const file = join(scratch, "a-file");
    writeFileSync(file, "not a directory");
    expectOneLine(
      (await failedStart({ DATA_DIR: file }, CONFIG_ERROR)).stderr,
      "DATA_DIR",
      file,
      "is a file",
    );
  });

  it("DATA_DIR below a file", async () => {
    const file = join(scratch, "another-file");
    writeFileSync(file, "not a directory");
    const dataDir = join(file, "data");
    expectOneLine(
      (await failedStart({ DATA_DIR: dataDir }, CONFIG_ERROR)).stderr,
      "DATA_DIR",
      dataDir,
      "writable directory",
    );
  });

  it("a database that cannot be opened", async () => {
    const dataDir = freshDir();
    mkdirSync(join(dataDir, "db.sqlite"), { recursive: true });
    const { stderr } = await failedStart({ DATA_DIR: dataDir });
    expectOneLine(stderr, join(dataDir, "db.sqlite"), "SQLITE_CANTOPEN", "DATA_DIR");
  });

  it("production without SEED_ADMIN_PASSWORD for the first admin", async () => {
    const { stderr } = await failedStart(
      {
        DATA_DIR: freshDir(),
        NODE_ENV: "production",
        BETTER_AUTH_SECRET: "a-production-secret-that-is-long-enough",
      },
      CONFIG_ERROR,
    );
    expectOneLine(stderr, "SEED_ADMIN_PASSWORD", "NODE_ENV=production");
  });

  it("production without BETTER_AUTH_SECRET", async () => {
    const { stderr } = await failedStart({ DATA_DIR: freshDir(), NODE_ENV: "production" }, CONFIG_ERROR);
    expectOneLine(stderr, "BETTER_AUTH_SECRET", "openssl rand");
  });

  it("a DATABASE_URL that is not PostgreSQL, without repeating its password", async () => {
    const { stderr } = await failedStart(
      { DATA_DIR: freshDir(), DATABASE_URL: "mysql://stackgate:canary-db-secret@db:3306/stackgate" },
      CONFIG_ERROR,
    );
    expectOneLine(stderr, "DATABASE_URL", "PostgreSQL URL");
    expect(stderr).not.toContain("canary-db-secret");
  });

  it("a DATABASE_URL whose server cannot be reached", async () => {
    const { stderr } = await failedStart(
      {
        DATA_DIR: freshDir(),
        DATABASE_URL: `postgres://stackgate:canary-db-secret@127.0.0.1:${UNREACHABLE_PORT}/stackgate`,
      },
      CONFIG_ERROR,
    );
    expectOneLine(
      stderr,
      "DATABASE_URL",
      `127.0.0.1:${UNREACHABLE_PORT}/stackgate`,
      "cannot be reached (ECONNREFUSED)",
    );
    expect(stderr).not.toContain("canary-db-secret");
  });
});

describe.skipIf(!findPostgresPrograms())("a PostgreSQL server that refuses", () => {
  let postgres: PostgresServer;
  beforeAll(async () => {
    postgres = await startPostgres({ passwordRole: { name: "guarded", password: "the-right-password" } });
  });
  afterAll(() => postgres?.remove());
  const at = (credentials: string, database: string) =>
    `postgres://${credentials}@127.0.0.1:${postgres.port}/${database}`;

  it("wrong credentials", async () => {
    const { stderr } = await failedStart(
      { DATA_DIR: freshDir(), DATABASE_URL: at("guarded:canary-wrong-password", "postgres") },
      CONFIG_ERROR,
    );
    expectOneLine(stderr, "DATABASE_URL", "user name or password was refused");
    expect(stderr).not.toContain("canary-wrong-password");
  });

  it("a database that does not exist", async () => {
    const { stderr } = await failedStart(
      { DATA_DIR: freshDir(), DATABASE_URL: at("stackgate", "no_such_database") },
      CONFIG_ERROR,
    );
    expectOneLine(stderr, "DATABASE_URL", "/no_such_database", "does not exist");
  });
});
