import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { readVersion, UNKNOWN_VERSION } from "./version.ts";

const rootPackage = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../../../package.json"), "utf8"),
) as {
  version: string;
};

const scratch = mkdtempSync(join(tmpdir(), "stackgate-version-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("readVersion", () => {
  test("STACKGATE_VERSION, when a build sets it", () => {
    expect(readVersion({ STACKGATE_VERSION: "1.2.3" })).toBe("1.2.3");
  });

  test("the repository's package.json, from the sources", () => {
    expect(readVersion({})).toBe(rootPackage.version);
  });

  test("the repository's package.json from a build under dist/, past another package's and a broken one", () => {
    const repository = join(scratch, "repository");
    const build = join(repository, "dist/bundle/backend");
    mkdirSync(build, { recursive: true });
    writeFileSync(join(repository, "package.json"), JSON.stringify({ name: "stackgate", version: "9.8.7" }));
    writeFileSync(
      join(repository, "dist/package.json"),
      JSON.stringify({ name: "something-else", version: "0.0.1" }),
    );
    writeFileSync(join(repository, "dist/bundle/package.json"), "{ not json");
    expect(readVersion({}, pathToFileURL(join(build, "stackgate.mjs")).href)).toBe("9.8.7");
  });

  test("unknown, rather than a crash, when no repository is around the code", () => {
    const alone = join(scratch, "alone");
    expect(readVersion({}, pathToFileURL(join(alone, "stackgate.mjs")).href)).toBe(UNKNOWN_VERSION);
  });
});
