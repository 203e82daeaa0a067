import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { rewriteForNoIcu, rewrites } from "../apps/frontend/no-icu-for-astro.mjs";

const astroRoot = dirname(
  createRequire(join(import.meta.dirname, "../apps/frontend/package.json")).resolve("astro/package.json"),
);
const helper = <T>(index: number, name: string) =>
  new Function(`${rewrites[index]!.helper}; return ${name};`)() as T;

describe("the dashboard's server build leaves ICU's data unloaded (stackgate:no-icu-for-astro)", () => {
  it.each(rewrites.map(({ file }) => [file]))("still applies to the installed Astro's %s", (file) => {
    const path = join(astroRoot, file.replace("/astro/", ""));
    const rewritten = rewriteForNoIcu(readFileSync(path, "utf8"), path)!.code;
    expect(rewritten).not.toMatch(/\.localeCompare\(|new Intl\.DateTimeFormat\(\[\], \{\n/);
  });

  it("puts in what behaves as Astro's code did where it is used: log times, route order", () => {
    const lazyFormat = helper<(options: object) => { format(date: Date): string }>(
      0,
      "stackgateLazyDateTimeFormat",
    );
    const options: Intl.DateTimeFormatOptions = {
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hour12: false,
    };
    const date = new Date(2026, 0, 2, 3, 4, 5);
    expect(lazyFormat(options).format(date)).toBe(new Intl.DateTimeFormat([], options).format(date));
    const byCodeUnits = helper<(a: string, b: string) => number>(1, "stackgateByCodeUnits");
    const routes = ["/stacks/[name]", "/history", "/stacks", "/runs/[id]"];
    expect([...routes].sort(byCodeUnits)).toEqual([...routes].sort((a, b) => a.localeCompare(b)));
  });

  it("fails the build when Astro's code reads differently, rather than loading ICU unnoticed", () => {
    expect(() =>
      rewriteForNoIcu("const other = 1;", "/x/node_modules/astro/dist/core/logger/core.js"),
    ).toThrow(/update the plugin/);
    expect(rewriteForNoIcu("a.localeCompare(b)", "/x/src/pages/index.astro")).toBeUndefined();
  });
});
