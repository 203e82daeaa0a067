/** Why the database cannot take a write right now, and what the operator can do about it. */
export interface DatabaseOutage {
  problem: string;
  advice: string;
  /** `problem; advice`: the whole sentence an answer carries. */
  message: string;
}

const outage = (problem: string, advice: string): DatabaseOutage => ({
  problem,
  advice,
  message: `${problem}; ${advice}`,
});

function sqliteCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("SQLITE_")) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The SQLite failures that come from the database's surroundings (a lock held by another
 * process, a full disk, a failing or read-only file system) rather than from a bug: they pass
 * once the surroundings recover, and are answered 503. Anything else is undefined.
 */
export function databaseOutage(error: unknown): DatabaseOutage | undefined {
  const code = sqliteCode(error);
  if (!code) return undefined;
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return outage("The database is busy (another process holds a lock on it)", "try again in a moment");
  }
  if (code.startsWith("SQLITE_FULL")) {
    return outage(
      "The database is full (no space left on the disk that holds DATA_DIR)",
      "free some space there; Stackgate recovers by itself",
    );
  }
  if (
    ["SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PROTOCOL", "SQLITE_NOMEM"].some((prefix) =>
      code.startsWith(prefix),
    )
  ) {
    return outage(
      `The database cannot be written (${code})`,
      "check the disk and the permissions of DATA_DIR; Stackgate recovers by itself",
    );
  }
  return undefined;
}
