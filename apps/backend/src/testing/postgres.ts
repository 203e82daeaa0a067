import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@stackgate/simulators";
import pg from "pg";

/** The environment variable through which test runs on PostgreSQL reach the server (an admin URL). */
export const TEST_POSTGRES_URL = "STACKGATE_TEST_POSTGRES_URL";
/**
 * Set to "postgres" by the "postgres" test project only (vitest.config.ts). The server's URL alone
 * is not enough: when both projects run together, the unit project's workers inherit it too.
 */
export const TEST_ENGINE = "STACKGATE_TEST_ENGINE";

/** The test server's admin URL when this test runs on PostgreSQL; undefined on SQLite. */
export const testPostgresServer = () =>
  process.env[TEST_ENGINE] === "postgres" ? process.env[TEST_POSTGRES_URL] : undefined;

/** PostgreSQL's server programs: POSTGRES_BIN_DIR, else Debian's newest (15 or later). */
export function findPostgresPrograms(): string | undefined {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .map(Number)
    .filter((version) => version >= 15 && existsSync(join(root, String(version), "bin", "initdb")))
    .sort((a, b) => b - a);
  return versions.length > 0 ? join(root, String(versions[0]), "bin") : undefined;
}

export interface PostgresServer {
  /** The URL of the server's `postgres` database, as the superuser `stackgate`. */
  adminUrl: string;
  port: number;
  /** The server process's id (for a test that kills it). */
  pid(): number;
  /**
   * Stops it: "immediate" is a crash (the last commits may be lost, as the server runs without
   * synchronous commits), "fast" a clean shutdown that keeps everything committed.
   */
  stop(mode?: "immediate" | "fast"): void;
  /** Starts it again after `stop`, on the same port and data. */
  start(): void;
  /** Stops it and removes its files. */
  remove(): void;
}

/**
 * A throw-away PostgreSQL server on loopback: its own cluster in a temporary directory, trust
 * authentication, no fsync. As root (CI), the server runs as the `postgres` user, which Debian's
 * package creates, since PostgreSQL refuses to run as root.
 */
export async function startPostgres({
  passwordRole,
}: {
  /** A role that must sign in with this password (every other connection is trusted). */
  passwordRole?: { name: string; password: string };
} = {}): Promise<PostgresServer> {
  const programs = findPostgresPrograms();
  if (!programs) {
    throw new Error(
      "No PostgreSQL server programs: install Debian's postgresql (apt-get install -y postgresql) or set POSTGRES_BIN_DIR",
    );
  }
  const directory = mkdtempSync(join(tmpdir(), "stackgate-postgres-"));
  const data = join(directory, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(directory, uid, gid);
  } else {
    mkdirSync(directory, { recursive: true });
  }
  const run = (program: string, args: string[]) => {
    const [command, commandArgs] = asRoot
      ? ["runuser", ["-u", "postgres", "--", join(programs, program), ...args]]
      : [join(programs, program), args];
    const result = spawnSync(command, commandArgs, { encoding: "utf8", cwd: directory });
    if (result.status !== 0) {
      const log = existsSync(join(directory, "log")) ? readFileSync(join(directory, "log"), "utf8") : "";
      throw new Error(`${program} failed (${result.status}): ${result.stderr}${result.stdout}\n${log}`);
    }
  };

  run("initdb", ["-D", data, "-A", "trust", "-U", "stackgate", "--no-sync", "-E", "UTF8", "--locale=C"]);
  if (passwordRole) {
    // pg_hba.conf is read top down: the first line matching the role wins.
    const hba = join(data, "pg_hba.conf");
    writeFileSync(
      hba,
      `host all ${passwordRole.name} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, "utf8")}`,
    );
  }
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${directory}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=400",
  ].join(" ");
  const start = () =>
    run("pg_ctl", ["start", "-w", "-t", "60", "-D", data, "-l", join(directory, "log"), "-o", options]);
  start();
  if (passwordRole) {
    const client = new pg.Client({ connectionString: `postgres://stackgate@127.0.0.1:${port}/postgres` });
    await client.connect();
    await client.query(`CREATE ROLE ${passwordRole.name} LOGIN PASSWORD '${passwordRole.password}'`);
    await client.end();
  }
  const stop = (mode: "immediate" | "fast" = "immediate") => {
    if (existsSync(join(data, "postmaster.pid"))) run("pg_ctl", ["stop", "-w", "-D", data, "-m", mode]);
  };
  return {
    adminUrl: `postgres://stackgate@127.0.0.1:${port}/postgres`,
    port,
    pid: () => Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    start,
    stop,
    remove() {
      stop("immediate");
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A new, empty database on the server; returns its URL. */
export async function createTestDatabase(adminUrl: string): Promise<string> {
  const name = `stackgate_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
