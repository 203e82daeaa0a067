import { describe, expect, test } from "vitest";
import { pathOnThisSite } from "./site-path.ts";

describe("pathOnThisSite", () => {
  test.each([
    ["/stacks", "/stacks"],
    ["/history?range=7d#top", "/history?range=7d#top"],
    ["/stacks/web?tab=images&x=%2F#findings", "/stacks/web?tab=images&x=%2F#findings"],
    ["/security/image?ref=a%2Fb", "/security/image?ref=a%2Fb"],
    // An encoded backslash stays encoded in a Location header: a path on this site.
    ["/%5Cevil.example", "/%5Cevil.example"],
    ["/%5Cx", "/%5Cx"],
    // Dot segments that stay below the root are resolved, never let out of the site.
    ["/a/../../b", "/b"],
    ["/a/./b/", "/a/b/"],
    ["/sign-in-help", "/sign-in-help"],
  ])("keeps the same-site path %j as %j", (value, expected) => {
    expect(pathOnThisSite(value)).toBe(expected);
  });

  test.each([
    [null],
    [undefined],
    [""],
    ["stacks"],
    ["https://evil.example/"],
    ["https:x"],
    ["https:/evil.example"],
    ["javascript:alert(1)"],
    ["//x"],
    ["//evil.example/x"],
    ["///x"],
    ["////evil.example"],
    ["/\\x"],
    ["/\\evil.example"],
    ["\\/x"],
    ["\\\\evil.example"],
    // Normalised, each of these becomes the protocol-relative `//x`.
    ["/.//x"],
    ["/././/x"],
    ["/..//x"],
    ["/../..//x"],
    ["/a/..//x"],
    ["/%2e//x"],
    ["/%2E%2E//x"],
    ["/.%2e//x"],
    ["/./\\x"],
    ["/.\\/x"],
    ["/..\\\\x"],
    // Tabs and newlines, which browsers drop from a URL, inside and around.
    ["/\tevil"],
    ["/\t/evil.example"],
    ["/\n/evil.example"],
    ["/\r\n/evil.example"],
    ["/.\t//evil.example"],
    ["/stacks\u0000"],
    ["/stacks\u007f"],
    ["/sign-in"],
    ["/sign-in/"],
    ["/sign-in?next=/x"],
    ["/a/../sign-in"],
  ])("falls back to / for %j", (value) => {
    expect(pathOnThisSite(value)).toBe("/");
  });

  test("falls back to the given fallback", () => {
    expect(pathOnThisSite("/.//evil.example", "/history")).toBe("/history");
  });
});
