import { describe, expect, test } from "vitest";
import { describeContainer, type Stack, toStackRows } from "./model.ts";

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

describe("a container's state", () => {
  test("running and healthy, running but unhealthy, exited, restarting, or not known", () => {
    expect(describeContainer("running", "Up 2 hours (healthy)")).toMatchObject({
      known: "running",
      tone: "success",
    });
    expect(describeContainer("running", "Up 1 minute (unhealthy)")).toMatchObject({
      known: "unhealthy",
      tone: "warning",
    });
    expect(describeContainer("exited", "Exited (1) 3 seconds ago")).toMatchObject({
      known: "stopped",
      tone: "neutral",
    });
    expect(describeContainer("restarting", null)).toMatchObject({ known: "restarting", tone: "warning" });
    expect(describeContainer(null, null)).toMatchObject({ known: "unknown", tone: "neutral" });
  });
});
