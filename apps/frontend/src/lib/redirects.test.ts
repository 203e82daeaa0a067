import { describe, expect, test } from "vitest";
import { safeNextPath, signInPathFor } from "./redirects.ts";

describe("safeNextPath", () => {
  test.each([
    ["/stacks", "/stacks"],
    ["/history?range=7d#top", "/history?range=7d#top"],
    ["/security/image?ref=a%2Fb", "/security/image?ref=a%2Fb"],
    // An encoded backslash stays encoded in a Location header: a path on this site.
    ["/%5Cevil.example", "/%5Cevil.example"],
  ])("keeps the same-site path %s", (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  test.each([
    [null],
    [""],
    ["stacks"],
    ["https://evil.example/"],
    ["//evil.example/x"],
    ["/\\evil.example"],
    ["javascript:alert(1)"],
    ["/\tevil"],
    ["/sign-in"],
    ["/sign-in?next=/x"],
  ])("falls back to / for %j", (next) => {
    expect(safeNextPath(next)).toBe("/");
  });

  test("normalises dot segments without leaving the site", () => {
    expect(safeNextPath("/a/../../b")).toBe("/b");
  });
});

test("signInPathFor carries the path and query", () => {
  expect(signInPathFor("/history?range=7d")).toBe("/sign-in?next=%2Fhistory%3Frange%3D7d");
});
