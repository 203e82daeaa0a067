import { describe, expect, it } from "vitest";
import { cleanUpstreamLabel, cleanUpstreamText, limitLength, UPSTREAM_TEXT_LIMIT } from "./text.ts";

describe("upstream text", () => {
  it.each([
    ["\u001b[1;31mred\u001b[0m", "red"],
    ["\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007", "link"],
    ["\u001b]0;title\u001b\\after", "after"],
    ["\u009b2Jcleared", "cleared"],
    ["bell\u0007 null\u0000 del\u007f c1\u0085", "bell null del c1"],
    ["file\u202egnp.exe\u202c and \u2066isolated\u2069 \u200fmark", "filegnp.exe and isolated mark"],
    ["line one\r\nline two\rthree\tcolumn", "line one\nline two\nthree\tcolumn"],
    ["ünïcödé 日本 🚀 stays", "ünïcödé 日本 🚀 stays"],
  ])("cleans %j", (raw, clean) => {
    expect(cleanUpstreamText(raw)).toBe(clean);
  });

  it("makes labels one line", () => {
    expect(cleanUpstreamLabel("web\n\tapp\r\nx")).toBe("web app x");
  });

  it("cuts long text to the limit with an ellipsis, never inside a surrogate pair", () => {
    const cut = cleanUpstreamText("a".repeat(100_000));
    expect(cut).toHaveLength(UPSTREAM_TEXT_LIMIT);
    expect(cut.endsWith("a…")).toBe(true);
    expect(limitLength(`ab${"🚀".repeat(5)}`, 4)).toBe("ab…");
    expect(limitLength("abc", 3)).toBe("abc");
  });

  it("redacts before it cuts, so no secret is left half visible", () => {
    const secret = "S_secret_value_S";
    const text = `${"x".repeat(UPSTREAM_TEXT_LIMIT - 5)}${secret}`;
    const cleaned = cleanUpstreamText(text, (value) => value.replaceAll(secret, "[redacted]"));
    expect(cleaned).not.toContain("S_sec");
    expect(cleaned).toHaveLength(UPSTREAM_TEXT_LIMIT);
  });
});
