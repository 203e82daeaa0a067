import { ConfigError } from "../platform/config.ts";

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

/** The first error code in the chain of causes that the test accepts (drizzle wraps the driver's error). */
function codeIn(error: unknown, accept: (code: string) => boolean): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && accept(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function messagesIn(error: unknown): string {
  const messages: string[] = [];
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    messages.push(String((current as { message?: unknown }).message ?? ""));
    current = (current as { cause?: unknown }).cause;
  }
  return messages.join(" | ");
}

const SOCKET_CODES = [
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
];
// node-postgres's own words for a connection that went away or never came.
const LOST_CONNECTION =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error/i;
/** PostgreSQL's SQLSTATE codes are five characters: class (2) and condition (3). */
const isSqlState = (code: string) => /^[0-9A-Z]{5}$/.test(code);

/** PostgreSQL's failures that the surroundings cause (a server going away, a full disk, contention). */
function postgresOutage(error: unknown): DatabaseOutage | undefined {
  const socket = codeIn(error, (code) => SOCKET_CODES.includes(code));
  const state = codeIn(error, isSqlState);
  if (
    socket ||
    state?.startsWith("08") ||
    ["57P01", "57P02", "57P03"].includes(state ?? "") ||
    LOST_CONNECTION.test(messagesIn(error))
  ) {
    return outage(
      "The database cannot be reached (PostgreSQL is down or restarting)",
      "try again in a moment; Stackgate reconnects by itself",
    );
  }
  if (state === "53100") {
    return outage(
      "The database is full (no space left on PostgreSQL's disk)",
      "free some space there; Stackgate recovers by itself",
    );
  }
  if (state?.startsWith("53") || ["40001", "40P01", "55P03", "57014"].includes(state ?? "")) {
    return outage("The database is busy", "try again in a moment");
  }
  return undefined;
}

/**
 * The SQLite and PostgreSQL failures that come from the database's surroundings (a lock held by another
 * process, a full disk, a failing or read-only file system) rather than from a bug: they pass
 * once the surroundings recover, and are answered 503. Anything else is undefined.
 */
export function databaseOutage(error: unknown): DatabaseOutage | undefined {
  const code = codeIn(error, (candidate) => candidate.startsWith("SQLITE_"));
  if (!code) return postgresOutage(error);
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

/**
 * Why PostgreSQL could not be used at start, as a ConfigError naming DATABASE_URL (its password is
 * never repeated): the backend exits with the configuration-error code rather than retry a URL that
 * will not work.
 */
export function databaseUnreachable(error: unknown, url: string): ConfigError {
  let where = "PostgreSQL";
  try {
    const parsed = new URL(url);
    where = `PostgreSQL at ${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {}
  const state = codeIn(error, isSqlState);
  const socket = codeIn(error, (code) => SOCKET_CODES.includes(code));
  const why =
    state === "28P01" || state === "28000"
      ? "the user name or password was refused"
      : state === "3D000"
        ? "that database does not exist (create it first, empty)"
        : socket === "ENOTFOUND" || socket === "EAI_AGAIN"
          ? "its host name is unknown"
          : socket
            ? `it cannot be reached (${socket})`
            : /timeout/i.test(messagesIn(error))
              ? "it did not answer within 5 s"
              : `it refused the connection (${state ?? (error as Error)?.message ?? "unknown"})`;
  return new ConfigError(
    `DATABASE_URL: ${where} cannot be used, ${why}: check DATABASE_URL and that the server runs`,
  );
}
