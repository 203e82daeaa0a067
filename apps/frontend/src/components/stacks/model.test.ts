import { describe, expect, test } from "vitest";
import { type Stack, toStackRows } from "./model.ts";

const stackNamed = (name: string, state = "running"): Stack => ({
  id: name,
  name,
  state,
  status: null,
  info: { services: [] },
  images: [],
});
const order = (names: string[], states: Record<string, string> = {}) =>
  toStackRows(
    names.map((name) => stackNamed(name, states[name])),
    new Map(),
  ).map((row) => row.stack.name);

describe("the stack list's order", () => {
  test("problems first, then alphabetical ignoring case, as the locale would sort these names", () => {
    const names = ["gitea", "Beta", "alpha", "beta", "n8n", "10-web", "2fa"];
    expect(order(names, { n8n: "dead", gitea: "unhealthy" })).toEqual([
      "n8n",
      "gitea",
      ...["Beta", "alpha", "beta", "10-web", "2fa"].sort((a, b) => a.localeCompare(b)),
    ]);
  });

  test("names beyond ASCII sort in the locale's order", () => {
    expect(order(["zeta", "éclair", "eagle", "Ærø"])).toEqual(
      ["zeta", "éclair", "eagle", "Ærø"].sort((a, b) => a.localeCompare(b)),
    );
  });
});
