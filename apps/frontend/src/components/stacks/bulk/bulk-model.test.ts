import { describe, expect, test } from "vitest";
import {
  type BulkRunView,
  parseConcurrency,
  permissionFor,
  type StackRunState,
  tally,
} from "./bulk-model.ts";

describe("bulk actions", () => {
  test("deploys need the deploy permission; poll-for-updates and delete need admin", () => {
    expect(["pull", "redeploy", "pull-redeploy"].map((a) => permissionFor(a as "pull"))).toEqual([
      "deploy",
      "deploy",
      "deploy",
    ]);
    expect(["poll-on", "poll-off", "delete"].map((a) => permissionFor(a as "delete"))).toEqual([
      "admin",
      "admin",
      "admin",
    ]);
  });

  test("the remembered limit is a whole number from 1 to 10, else 3", () => {
    expect(["1", "7", "10"].map(parseConcurrency)).toEqual([1, 7, 10]);
    expect(["0", "11", "2.5", "", "three", null, undefined].map(parseConcurrency)).toEqual([
      3, 3, 3, 3, 3, 3, 3,
    ]);
  });

  test("the tally counts each stack once and is finished only when nothing waits or runs", () => {
    const states = new Map<string, StackRunState>([
      ["a", { status: "succeeded", finishedAt: 1 }],
      ["b", { status: "failed", reason: "port is already allocated" }],
      ["c", { status: "running", startedAt: 1 }],
      ["d", { status: "cancelled" }],
    ]);
    const run: BulkRunView = { action: "pull", stacks: ["a", "b", "c", "d", "e"], states };
    expect(tally(run)).toEqual({
      waiting: 1,
      running: 1,
      succeeded: 1,
      failed: ["b"],
      cancelled: 1,
      finished: false,
    });
    states.set("c", { status: "succeeded", finishedAt: 2 });
    states.set("e", { status: "cancelled" });
    expect(tally(run).finished).toBe(true);
  });
});
