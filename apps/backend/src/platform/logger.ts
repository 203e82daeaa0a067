import pino from "pino";

export type Logger = pino.Logger;

/** Paths that may hold a credential; pino replaces them before anything is written. */
const redactedPaths = [
  "key",
  "secret",
  "token",
  "password",
  "*.key",
  "*.secret",
  "*.token",
  "*.password",
  "headers.cookie",
  'headers["x-api-key"]',
  'headers["x-api-secret"]',
  "headers.authorization",
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, base: undefined, redact: { paths: redactedPaths, censor: "[redacted]" } },
    destination,
  );
}
