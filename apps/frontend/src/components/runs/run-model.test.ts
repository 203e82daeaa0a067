import { describe, expect, test } from "vitest";
import {
  changeKind,
  firstFailedStage,
  outcomeOf,
  type RunStage,
  runHref,
  runIdFromPath,
  shortDigest,
  summarizeChanges,
  withNewStages,
} from "./run-model.ts";

const A = "sha256:3f2a9c1d4e5b6a7980112233445566778899aabbccddeeff0011223344556677";
const B = "sha256:9c1d4e5f00112233445566778899aabbccddeeff00112233445566778899aabb";

describe("short digests", () => {
  test("drop the algorithm and keep eight characters, marking the cut", () => {
    expect(shortDigest(A)).toBe("3f2a9c1d…");
    expect(shortDigest(B)).toBe("9c1d4e5f…");
  });

  test("a value already short, or without an algorithm, is shown as it is", () => {
    expect(shortDigest("sha256:3f2a")).toBe("3f2a");
    expect(shortDigest("3f2a9c1d")).toBe("3f2a9c1d");
    expect(shortDigest("abcdef0123456789")).toBe("abcdef01…");
  });
});

describe("what a deploy changed", () => {
  const web = { service: "web", image: "nginx:1.27" };

  test("each service: changed, the same, or unknown where a side was not read", () => {
    expect(changeKind({ from: A, to: B })).toBe("changed");
    expect(changeKind({ from: A, to: A })).toBe("same");
    expect(changeKind({ from: null, to: B })).toBe("unknown");
    expect(changeKind({ from: A, to: null })).toBe("unknown");
    expect(changeKind({ from: null, to: null })).toBe("unknown");
  });

  test("'no change' only when every digest is known and the same", () => {
    expect(
      summarizeChanges([
        { ...web, from: A, to: A },
        { service: "db", image: "postgres:16", from: B, to: B },
      ]),
    ).toEqual({ kind: "no-change" });
    // Unknown is never read as unchanged.
    expect(summarizeChanges([{ ...web, from: null, to: null }])).toEqual({
      kind: "changes",
      shown: [{ ...web, from: null, to: null }],
    });
  });

  test("lists the services that changed or are unknown, in order, leaving out the same ones", () => {
    const changed = { ...web, from: A, to: B };
    const unknown = { service: "worker", image: "acme/worker:2", from: null, to: A };
    expect(
      summarizeChanges([changed, { service: "db", image: "postgres:16", from: B, to: B }, unknown]),
    ).toEqual({ kind: "changes", shown: [changed, unknown] });
  });

  test("nothing recorded (an older run, or Komodo unread) is said as such", () => {
    expect(summarizeChanges([])).toEqual({ kind: "not-recorded" });
  });
});

describe("a run's outcome", () => {
  const settle = (state: "watching" | "stable" | "unstable" | "skipped") => ({
    state,
    reason: null,
    until: null,
  });

  test("a success that did not stay up is unstable, not failed; one still watched says so", () => {
    expect(outcomeOf({})).toBe("running");
    expect(outcomeOf({ success: false, settle: settle("skipped") })).toBe("failed");
    expect(outcomeOf({ success: true, settle: settle("unstable") })).toBe("unstable");
    expect(outcomeOf({ success: true, settle: settle("watching") })).toBe("watching");
    expect(outcomeOf({ success: true, settle: settle("stable") })).toBe("succeeded");
    expect(outcomeOf({ success: true, settle: null })).toBe("succeeded");
  });
});

describe("stages as they arrive", () => {
  const stage = (name: string, at: number, success = true): RunStage => ({
    stage: name,
    command: `docker compose ${name.toLowerCase()}`,
    stdout: "",
    stderr: `${name} output`,
    success,
    startedAt: new Date(at),
    endedAt: new Date(at + 500),
  });

  test("a log event's stages are added after those known", () => {
    const pull = stage("Compose Pull", 1_000);
    const up = stage("Compose Up", 3_000);
    expect(withNewStages([pull], [up])).toEqual([pull, up]);
  });

  test("a stage both the read and the event hold is kept once", () => {
    const pull = stage("Compose Pull", 1_000);
    const down = stage("Compose Down", 2_000);
    expect(withNewStages([pull, down], [{ ...down }])).toEqual([pull, down]);
    // The same stage name at another time is another stage.
    expect(withNewStages([pull], [stage("Compose Pull", 5_000)])).toHaveLength(2);
  });

  test("the failed stage is the one shown open", () => {
    expect(firstFailedStage([stage("Compose Pull", 1), stage("Compose Up", 2, false)])).toBe(1);
    expect(firstFailedStage([stage("Compose Pull", 1)])).toBe(-1);
  });
});

describe("a run's address", () => {
  test("escapes the id and reads it back", () => {
    expect(runHref("abc-123")).toBe("/runs/abc-123");
    expect(runIdFromPath(runHref("a b/c"))).toBe("a b/c");
    expect(runIdFromPath("/runs/abc/logs")).toBeNull();
    expect(runIdFromPath("/runs/abc-123")).toBe("abc-123");
    expect(runIdFromPath("/runs/")).toBeNull();
    expect(runIdFromPath("/runs/%E0%A4%A")).toBeNull();
    expect(runIdFromPath("/stacks/web")).toBeNull();
  });
});
