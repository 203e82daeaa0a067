import { accessSync, chmodSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "./config.ts";

const errorCode = (error: unknown) =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : undefined;

const DATA_FILES = ["db.sqlite", "db.sqlite-wal", "db.sqlite-shm", "auth-secret", "first-sign-in"];

/**
 * Makes sure DATA_DIR is a directory this process can write (creating it, 0700 under the
 * backend's umask), and narrows files an older version created readable by others to 0600.
 * Throws a ConfigError with one line naming the path and what to do.
 */
export function prepareDataDirectory(dataDir: string) {
  const fix = "set DATA_DIR to a writable directory (it is created when missing)";
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    throw new ConfigError(`DATA_DIR: ${dataDir} is a file, not a directory: ${fix}`);
  }
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = errorCode(error);
    const why =
      code === "EEXIST" || code === "ENOTDIR"
        ? "part of the path is a file"
        : code === "EACCES" || code === "EPERM" || code === "EROFS"
          ? "this process may not write there"
          : `it cannot be created (${code ?? (error as Error).message})`;
    throw new ConfigError(`DATA_DIR: ${dataDir} cannot be used, ${why} (${code}): ${fix}`);
  }
  for (const name of DATA_FILES) {
    try {
      chmodSync(join(dataDir, name), 0o600);
    } catch {
      // Missing, or owned by someone else: nothing to narrow.
    }
  }
}

const SQLITE_REASONS: Record<string, string> = {
  SQLITE_CANTOPEN: "it cannot be opened or created",
  SQLITE_READONLY: "it is read-only",
  SQLITE_PERM: "this process may not write it",
  SQLITE_FULL: "the disk is full",
  SQLITE_BUSY: "another process holds a lock on it",
  SQLITE_NOTADB: "it is not an SQLite database",
  SQLITE_CORRUPT: "it is damaged",
};

/** One line for a failure while opening the database or seeding the admin, naming the path or variable. */
export function explainStartupFailure(error: unknown, databasePath: string): string {
  if (error instanceof ConfigError) return error.message;
  const code = errorCode(error);
  if (code?.startsWith("SQLITE_")) {
    const reason = SQLITE_REASONS[code] ?? (error as Error).message;
    const fix =
      code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT"
        ? "restore it from a backup, or set DATA_DIR to another directory"
        : "DATA_DIR must be a writable directory on a disk with free space";
    return `The database ${databasePath} cannot be used, ${reason} (${code}): ${fix}`;
  }
  const path = (error as { path?: unknown }).path;
  if (code && typeof path === "string") {
    return `DATA_DIR: ${path} cannot be written (${code}): DATA_DIR must be a writable directory on a disk with free space`;
  }
  return `The backend failed to start: ${(error as Error)?.message ?? String(error)} (set LOG_LEVEL=debug for details)`;
}

/** One line for a failure to listen on BACKEND_HOST:BACKEND_PORT. */
export function explainListenFailure(error: unknown, host: string, port: number): string {
  const code = errorCode(error);
  if (code === "EADDRINUSE") {
    return `BACKEND_PORT: port ${port} on ${host} is already in use: stop the program using it, or set BACKEND_PORT to a free port`;
  }
  if (code === "EACCES") {
    return `BACKEND_PORT: this process may not listen on port ${port}: choose a port above 1023`;
  }
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
    return `BACKEND_HOST: ${host} is not an address of this machine: use 127.0.0.1, or 0.0.0.0 inside a container`;
  }
  return `The backend cannot listen on ${host}:${port} (${code ?? (error as Error).message}): check BACKEND_HOST and BACKEND_PORT`;
}
