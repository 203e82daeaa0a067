/**
 * The gateway's CSP allows Astro's inline scripts by hash. When an Astro upgrade changes them, this
 * test names the hashes to put in apps/gateway/src/gateway.ts (the browser tests would only show
 * islands that never hydrate).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { securityHeaders } from "../../../gateway/src/gateway.ts";

const astroRuntime = join(import.meta.dirname, "../../../../node_modules/astro/dist/runtime");
/** What Astro inlines into a page with islands: its bootstrap (both builds) and one script per directive. */
const INLINE_SCRIPTS = [
  "server/astro-island.prebuilt.js",
  "server/astro-island.prebuilt-dev.js",
  ...["load", "idle", "visible", "media", "only"].map((directive) => `client/${directive}.prebuilt.js`),
];

async function inlineScriptHashes(): Promise<string[]> {
  return Promise.all(
    INLINE_SCRIPTS.map(async (file) => {
      const { default: script } = (await import(pathToFileURL(join(astroRuntime, file)).href)) as {
        default: string;
      };
      return `'sha256-${createHash("sha256").update(script).digest("base64")}'`;
    }),
  );
}

const scriptSrc = () =>
  securityHeaders["content-security-policy"]
    ?.split(";")
    .map((directive) => directive.trim().split(/\s+/))
    .find(([name]) => name === "script-src")
    ?.slice(1) ?? [];

it("allows no inline script but Astro's own", async () => {
  expect(scriptSrc()).not.toContain("'unsafe-inline'");
  expect(scriptSrc()).not.toContain("'unsafe-eval'");
  expect(
    scriptSrc()
      .filter((source) => source.startsWith("'sha256-"))
      .sort(),
  ).toEqual((await inlineScriptHashes()).sort());
});
