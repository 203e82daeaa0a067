import { describe, expect, test } from "vitest";
import { matchScore, rankItems } from "./rank.ts";

const item = (name: string, order = 1) => ({ id: `stack:${name}`, name, order });

describe("matchScore", () => {
  test("exact beats prefix beats word start beats inside beats scattered letters; no match is null", () => {
    const exact = matchScore("web", "web");
    const prefix = matchScore("webhooks", "web");
    const wordStart = matchScore("my-web", "web");
    const inside = matchScore("cobweb", "web");
    const scattered = matchScore("wide-eb", "web");
    expect(exact).not.toBeNull();
    expect([exact, prefix, wordStart, inside, scattered].every((score) => score !== null)).toBe(true);
    expect(exact as number).toBeGreaterThan(prefix as number);
    expect(prefix as number).toBeGreaterThan(wordStart as number);
    expect(wordStart as number).toBeGreaterThan(inside as number);
    expect(inside as number).toBeGreaterThan(scattered as number);
    expect(matchScore("grafana", "xyz")).toBeNull();
  });

  test("ignores case and surrounding spaces", () => {
    expect(matchScore("Nextcloud", "  NEXT ")).toBe(matchScore("nextcloud", "next"));
  });
});

describe("rankItems", () => {
  const items = [item("cobweb"), item("web"), item("webhooks"), item("grafana"), item("my-web")];

  test("orders by match quality and drops what does not match", () => {
    expect(rankItems(items, "web", []).map((i) => i.name)).toEqual(["web", "webhooks", "my-web", "cobweb"]);
  });

  test("a recent item leads among matches of the same kind, and outright when nothing is typed", () => {
    const recent = ["stack:cobweb", "stack:grafana"];
    expect(
      rankItems(items, "", recent)
        .map((i) => i.name)
        .slice(0, 2),
    ).toEqual(["cobweb", "grafana"]);
    // "cobweb" only contains "web": a recent visit does not lift it above an exact name.
    expect(rankItems(items, "web", recent)[0]?.name).toBe("web");
    expect(rankItems([item("webhooks"), item("webapp")], "web", ["stack:webhooks"])[0]?.name).toBe(
      "webhooks",
    );
  });

  test("keeps at most `limit` items", () => {
    expect(rankItems(items, "", [], 2)).toHaveLength(2);
  });
});
