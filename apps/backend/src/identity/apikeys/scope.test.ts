import { describe, expect, it } from "vitest";
import { matchesStackPattern, normalStackPattern, visibilityOf } from "./scope.ts";

/** The meaning the contract gives a pattern, as a regular expression: for checking answers on short inputs only. */
const reference = (pattern: string, name: string) =>
  new RegExp(`^${pattern.replace(/[.]/g, "\\.").replace(/\*/g, ".*").replace(/\?/g, ".")}$`).test(name);

describe("a stack pattern", () => {
  it.each([
    ["web", "web", true],
    ["web", "web-1", false],
    ["web-*", "web-1", true],
    ["web-*", "web-", true],
    ["web-*", "api", false],
    ["*", "", true],
    ["*", "anything.at_all-1", true],
    ["?", "a", true],
    ["?", "", false],
    ["w?b", "web", true],
    ["*-prod", "api-prod", true],
    ["*-prod", "api-prod-2", false],
    ["a*b*c", "aXXbYYc", true],
    ["a*b*c", "aXXcYYb", false],
    ["*a*", "banana", true],
    ["*.*", "v1.2", true],
    ["*.*", "v12", false],
    ["**b", "ab", true],
  ])("%s against %s: %s", (pattern, name, expected) => {
    expect(matchesStackPattern(pattern, name)).toBe(expected);
    expect(reference(pattern, name)).toBe(expected);
  });

  it("agrees with the plain meaning on every short pattern and name over a small alphabet", () => {
    const words = (letters: string[], length: number): string[] =>
      length === 0
        ? [""]
        : words(letters, length - 1).flatMap((word) => letters.map((letter) => word + letter));
    const patterns = [0, 1, 2, 3, 4].flatMap((length) => words(["a", "b", "*", "?"], length));
    const names = [0, 1, 2, 3, 4].flatMap((length) => words(["a", "b"], length));
    for (const pattern of patterns)
      for (const name of names)
        expect(matchesStackPattern(pattern, name), `${pattern} ~ ${name}`).toBe(reference(pattern, name));
  });

  // The worst shapes for a backtracking matcher: many stars, each a little further from a match
  // that never comes, against the longest names the contract allows (128 characters).
  const longName = "a".repeat(128);
  const worstShapes = [
    `${"*".repeat(127)}b`,
    `${"*a".repeat(63)}*b`,
    `a${"*a".repeat(62)}*b`,
    `${"*?".repeat(63)}*b`,
    `${"*aa".repeat(42)}b`,
    `*${"a*".repeat(62)}ab`,
  ];
  it.each(worstShapes.map((pattern) => [pattern.length, pattern]))(
    "of %i characters matches a 128-character name well under a millisecond: %s",
    (_, pattern) => {
      expect(pattern.length).toBeLessThanOrEqual(128);
      for (const name of [longName, `${longName.slice(1)}c`, `b${longName.slice(1)}`]) {
        const started = performance.now();
        for (let round = 0; round < 100; round++) matchesStackPattern(pattern, name);
        const each = (performance.now() - started) / 100;
        expect(each, `${pattern} against ${name}`).toBeLessThan(0.5);
      }
    },
  );

  it("is stored without runs of stars, and a scope's visibility uses the stored form", () => {
    expect(normalStackPattern("web-***-**x*")).toBe("web-*-*x*");
    const visible = visibilityOf({ stacks: ["******************b"] });
    expect(visible.patterns).toEqual(["*b"]);
    expect(visible.admits(`${longName}b`.slice(-128))).toBe(true);
    expect(visible.admits(longName)).toBe(false);
  });
});
