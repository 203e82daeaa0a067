import { readFileSync } from "node:fs";

/** The release version: STACKGATE_VERSION when a build sets it, else the repository's package.json. */
export function readVersion(): string {
  if (process.env.STACKGATE_VERSION) return process.env.STACKGATE_VERSION;
  const rootPackage = new URL("../../../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(rootPackage, "utf8")) as { version: string }).version;
}
