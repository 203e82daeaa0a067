import { describe, expect, test, vi } from "vitest";
import { formatElapsed, parseDuration } from "./duration.ts";
import { idempotencyKeyOf } from "./idempotency.ts";
import { nearestNames } from "./nearest.ts";
import { createProgress } from "./progress.ts";

function recorder(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) > 0 } as never };
}

describe("progress", () => {
  test("on a terminal: one line redrawn in place with the step and the elapsed time", () => {
    let now = 0;
    const { written, stream } = recorder(true);
    const progress = createProgress({ stream, what: "web · redeploy", now: () => now });
    progress.started("run-1");
    now = 65_000;
    progress.step("take-down");
    progress.note("The event stream was interrupted (it closed); reconnecting");
    progress.stop();
    expect(written).toEqual([
      "\r\u001b[2Kweb · redeploy · waiting for Komodo · 0:00",
      "\r\u001b[2Kweb · redeploy · taking the stack down · 1:05",
      "\r\u001b[2K",
      "The event stream was interrupted (it closed); reconnecting\n",
      "\r\u001b[2Kweb · redeploy · taking the stack down · 1:05",
      "\r\u001b[2K",
    ]);
  });

  test("elsewhere: a plain timestamped line per change, none for a repeated step", () => {
    let now = 0;
    const { written, stream } = recorder(false);
    const progress = createProgress({ stream, what: "web · pull", now: () => now });
    progress.started("run-1");
    now = 3_000;
    progress.step("pull");
    progress.step("pull");
    now = 12_500;
    progress.step("\u001b[31mnew-step");
    progress.stop();
    expect(written.join("")).toBe(
      "[0:00] web · pull: started (run run-1)\n[0:03] step: pulling images\n[0:12] step: [31mnew-step\n",
    );
  });
  test("a stage on a terminal: the line cleared, the stage with its command and output, the line again; Komodo's markup and escapes removed", () => {
    const { written, stream } = recorder(true);
    const progress = createProgress({ stream, what: "web · redeploy", now: () => 0 });
    progress.started("run-1");
    progress.stage({
      stage: "Compose Up",
      command: "docker compose up -d",
      stdout: "",
      stderr: '<span class="text-red-700">ERROR</span>: \u001b[31mno space left\n',
      success: false,
    });
    progress.settling("2026-11-22T10:15:41.000Z");
    progress.stop();
    expect(written).toEqual([
      "\r\u001b[2Kweb · redeploy · waiting for Komodo · 0:00",
      "\r\u001b[2K",
      "stage Compose Up (failed)\n  $ docker compose up -d\n    ERROR: no space left\n",
      "\r\u001b[2Kweb · redeploy · waiting for Komodo · 0:00",
      "\r\u001b[2Kweb · redeploy · deployed; watching whether it stays up until 10:15:41 UTC · 0:00",
      "\r\u001b[2K",
    ]);
  });

  test("quiet: a stage's name and result only", () => {
    const { written, stream } = recorder(false);
    const progress = createProgress({ stream, what: "web · pull", now: () => 0, quiet: true });
    progress.stage({
      stage: "Compose Pull",
      command: "docker compose pull",
      stdout: "a",
      stderr: "b",
      success: true,
    });
    expect(written.join("")).toBe("[0:00] stage Compose Pull (ok)\n");
  });

  test("nothing is said of Komodo before a run exists: the heartbeat starts with the run", () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const { written, stream } = recorder(false);
      const progress = createProgress({ stream, what: "web · pull", now: () => now, heartbeatMs: 30_000 });
      now = 95_000;
      vi.advanceTimersByTime(95_000);
      expect(written).toEqual([]);
      progress.started("run-1");
      now = 126_000;
      vi.advanceTimersByTime(31_000);
      progress.stop();
      expect(written.join("")).toBe(
        "[1:35] web · pull: started (run run-1)\n[2:06] still running: waiting for Komodo\n",
      );
    } finally {
      vi.useRealTimers();
    }
  });

  test("plain lines on a terminal when asked (CI, --no-progress); nothing drawn before the run", () => {
    const { written, stream } = recorder(true);
    const plain = createProgress({ stream, what: "web · pull", plain: true, now: () => 0 });
    plain.note("Stackgate did not answer (502 Bad Gateway); retrying in 1 s");
    plain.started("run-1");
    plain.stop();
    expect(written.join("")).not.toContain("\u001b[");
    const drawn = recorder(true);
    const redrawn = createProgress({ stream: drawn.stream, what: "web · pull", now: () => 0 });
    redrawn.note("retrying");
    redrawn.stop();
    expect(drawn.written).toEqual(["retrying\n"]);
  });
});

describe("the idempotency key of a deploy", () => {
  const keyOf = (env: Record<string, string>, more: { flag?: string; newRun?: boolean } = {}) =>
    idempotencyKeyOf({ flag: more.flag, newRun: more.newRun ?? false, env, stack: "web", action: "pull" });
  const github = {
    GITHUB_ACTIONS: "true",
    GITHUB_REPOSITORY: "acme/shop",
    GITHUB_RUN_ID: "41",
    GITHUB_JOB: "deploy",
  };
  const gitlab = {
    GITLAB_CI: "true",
    CI_PROJECT_PATH: "acme/shop",
    CI_PIPELINE_ID: "41",
    CI_JOB_NAME: "deploy web",
  };

  test("in CI: the pipeline's identity, not the attempt", () => {
    const first = keyOf({ ...github, GITHUB_RUN_ATTEMPT: "1" });
    expect(first.source).toBe("github");
    expect(first.key).toMatch(/^github-[0-9a-f]{32}$/);
    expect(keyOf({ ...github, GITHUB_RUN_ATTEMPT: "2" }).key).toBe(first.key);
    for (const other of [
      { GITHUB_RUN_ID: "42" },
      { GITHUB_JOB: "deploy-2" },
      { GITHUB_REPOSITORY: "acme/blog" },
    ])
      expect(keyOf({ ...github, ...other }).key).not.toBe(first.key);
    expect(
      idempotencyKeyOf({ flag: undefined, newRun: false, env: github, stack: "api", action: "pull" }).key,
    ).not.toBe(first.key);
    const lab = keyOf({ ...gitlab, CI_JOB_ID: "1" });
    expect(lab).toEqual({ key: expect.stringMatching(/^gitlab-[0-9a-f]{32}$/), source: "gitlab" });
    expect(keyOf({ ...gitlab, CI_JOB_ID: "2" }).key).toBe(lab.key);
  });

  test("the flag, then the variable, win; --new-run and elsewhere: a new key each time", () => {
    expect(keyOf({ ...github, STACKGATE_IDEMPOTENCY_KEY: "release-7" })).toEqual({
      key: "release-7",
      source: "STACKGATE_IDEMPOTENCY_KEY",
    });
    expect(keyOf({ STACKGATE_IDEMPOTENCY_KEY: "release-7" }, { flag: "mine" }).key).toBe("mine");
    expect(keyOf(github, { newRun: true }).key).not.toBe(keyOf(github, { newRun: true }).key);
    expect(keyOf({}).source).toBe("invocation");
    expect(keyOf({}).key).not.toBe(keyOf({}).key);
  });
});

test("the nearest stack names to a mistyped one", () => {
  const names = ["web", "web-staging", "api", "prometheus", "grafana"];
  expect(nearestNames("prometeus", names)).toEqual(["prometheus"]);
  expect(nearestNames("we", names)).toEqual(["web", "web-staging"]);
  expect(nearestNames("no-such-stack", names)).toEqual([]);
  expect(nearestNames("web", undefined)).toBeUndefined();
});

test("durations as pipelines write them", () => {
  expect(parseDuration("15m")).toBe(900_000);
  expect(parseDuration("1h30m")).toBe(5_400_000);
  expect(parseDuration("90")).toBe(90_000);
  expect(parseDuration("500ms")).toBe(500);
  expect(parseDuration("soon")).toBeUndefined();
  expect(parseDuration("15 m")).toBeUndefined();
  expect(formatElapsed(3_725_000)).toBe("1:02:05");
});
