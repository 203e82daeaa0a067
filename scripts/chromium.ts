import { existsSync } from "node:fs";

/**
 * Chromium's headless shell renders pages with the same Blink and V8 as the browser, without the
 * browser's own windows and UI: the browser tests took less time in it (stacks.e2e.ts: 79 s in
 * `chromium`, 60 s in `chromium-headless-shell`, both with reduced motion, on the 2-core machine).
 */
const CANDIDATES = ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"];

/** The Chromium the browser tests drive: `CHROME_PATH`, else Debian's headless shell, else Debian's browser. */
export function chromiumPath(): string {
  return process.env.CHROME_PATH ?? CANDIDATES.find((path) => existsSync(path)) ?? CANDIDATES[0]!;
}
