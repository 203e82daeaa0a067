import { describe, expect, it } from "vitest";
import { stackHref, stackNameFromPath } from "./stack-path.ts";

describe("stack page addresses", () => {
  it.each([
    "web",
    "a=b",
    "a&b",
    "a%b",
    "a%3Db",
    "a#b",
    "a?b",
    "a/b",
    "with space",
    "a+b",
    "ünï-códe",
    "\u202Eevil",
  ])("%j survives the round trip", (name) => {
    const href = stackHref(name);
    expect(href.slice("/stacks/".length)).not.toMatch(/[=&#?/ %+](?![0-9A-F]{2})/);
    // What a browser sends and the server sees: the path of the URL the link resolves to.
    const { pathname } = new URL(href, "http://stackgate.test");
    expect(stackNameFromPath(pathname)).toBe(name);
  });

  it("refuses malformed escapes and other pages", () => {
    expect(stackNameFromPath("/stacks/%E0%A4%A")).toBeNull();
    expect(stackNameFromPath("/stacks/")).toBeNull();
    expect(stackNameFromPath("/history")).toBeNull();
  });
});
