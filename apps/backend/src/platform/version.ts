import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** What the version reads when no build set STACKGATE_VERSION and no repository is around the code. */
export const UNKNOWN_VERSION = "unknown";

/**
 * The release version: STACKGATE_VERSION when a build sets it (npm start, the images), else the
 * version in the repository's package.json, found upwards from this code, wherever it runs from
 * (the sources, or a build under dist/).
 */
export function readVersion(env: NodeJS.ProcessEnv = process.env, from: string = import.meta.url): string {
  if (env.STACKGATE_VERSION) return env.STACKGATE_VERSION;
  for (let dir = dirname(fileURLToPath(from)); ; dir = dirname(dir)) {
    const found = packageIn(dir);
    if (found?.name === "stackgate" && typeof found.version === "string") return found.version;
    if (dirname(dir) === dir) return UNKNOWN_VERSION;
  }
}

/** The package.json in `dir`, when there is one that parses. */
function packageIn(dir: string): { name?: unknown; version?: unknown } | undefined {
  const path = join(dir, "package.json");
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}
