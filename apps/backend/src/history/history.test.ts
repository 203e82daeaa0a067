import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../db/database.ts";
import { EVERY_STACK, visibilityOf } from "../identity/apikeys/scope.ts";
import { manualClock } from "../testing/clock.ts";
import { onPostgres, openTestDatabase } from "../testing/database.ts";
import {
  createHistoryService,
  type HistoryPageQuery,
  INTERRUPTED_MESSAGE,
  type NewHistoryEntry,
  selectPage,
} from "./service.ts";

const directory = mkdtempSync(join(tmpdir(), "stackgate-history-"));
const database = await openTestDatabase(directory);
afterAll(async () => {
  await database.close();
  rmSync(directory, { recursive: true, force: true });
});

const clock = manualClock(Date.parse("2026-11-22T12:00:00Z"));
const history = createHistoryService({ db: database.db, clock });

let sequence = 0;
function entry(at: string, stack: string, success: boolean): NewHistoryEntry {
  sequence += 1;
  return {
    id: `run-${sequence}`,
    createdAt: new Date(at),
    startedAt: new Date(at),
    actor: "Ada",
    via: "session",
    stack,
    action: "redeploy",
    success,
    message: success ? "ok" : `boom ${sequence}`,
  };
}

describe("history overview", () => {
  it("counts the last 30 days per day and per stack, and leaves older deploys out", async () => {
    await history.record(entry("2026-10-01T10:00:00Z", "web", false));
    await history.record(entry("2026-10-24T00:00:00Z", "web", true));
    await history.record(entry("2026-11-20T09:00:00Z", "web", true));
    await history.record(entry("2026-11-20T10:00:00Z", "db", false));
    await history.record(entry("2026-11-22T11:00:00Z", "web", false));
    await history.record(entry("2026-11-22T11:30:00Z", "web", true));

    const overview = await history.overview(EVERY_STACK);
    expect(overview.since.toISOString()).toBe("2026-10-24T00:00:00.000Z");
    expect(overview).toMatchObject({ total: 5, succeeded: 3, failed: 2, successRate: 0.6 });
    expect(overview.perDay).toHaveLength(30);
    expect(overview.perDay[0]).toEqual({
      date: "2026-10-24",
      total: 1,
      succeeded: 1,
      failed: 0,
      unstable: 0,
    });
    expect(overview.perDay.find((day) => day.date === "2026-11-20")).toMatchObject({
      succeeded: 1,
      failed: 1,
    });
    expect(overview.perDay.at(-1)).toEqual({
      date: "2026-11-22",
      total: 2,
      succeeded: 1,
      failed: 1,
      unstable: 0,
    });
    expect(overview.perStack.map((stack) => [stack.stack, stack.total, stack.failed])).toEqual([
      ["web", 4, 1],
      ["db", 1, 1],
    ]);
    expect(overview.recentFailures.map((failure) => failure.stack)).toEqual(["web", "db"]);
  });

  it("keeps only the newest 100 in the list, newest first", async () => {
    for (let minute = 0; minute < 120; minute++) {
      await history.record(
        entry(new Date(Date.parse("2026-11-21T00:00:00Z") + minute * 60_000).toISOString(), "api", true),
      );
    }
    const list = (await history.list({}, EVERY_STACK)).entries;
    expect(list).toHaveLength(100);
    expect(list[0]!.createdAt.toISOString()).toBe("2026-11-22T11:30:00.000Z");
    const times = list.map((item) => item.createdAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});

describe("running actions", () => {
  it("are on record but neither listed nor counted until they finish; the unfinished of a backend gone are taken over", async () => {
    const fresh = await openTestDatabase(directory, "running");
    const history = createHistoryService({ db: fresh.db, clock, runner: "backend-a" });
    const alive = createHistoryService({ db: fresh.db, clock, runner: "backend-b" });
    const started = {
      startedAt: new Date(clock.now()),
      actor: "Ada",
      via: "session" as const,
      action: "pull" as const,
    };
    await history.begin({ id: "done", stack: "web", ...started });
    await history.begin({ id: "cut-off", stack: "api", ...started });
    await alive.begin({ id: "elsewhere", stack: "db", ...started });
    expect((await history.list({}, EVERY_STACK)).entries).toEqual([]);
    expect((await history.overview(EVERY_STACK)).total).toBe(0);

    clock.advance(1000);
    await history.finish("done", { success: true, message: "ok", finishedAt: new Date(clock.now()) });
    expect((await history.list({}, EVERY_STACK)).entries).toEqual([
      expect.objectContaining({ id: "done", success: true, message: "ok" }),
    ]);

    clock.advance(1000);
    // Only the actions of the backend that is gone: taken over, still running, to be ended by the one
    // that took them; the other backend's run goes on.
    const survivor = createHistoryService({ db: fresh.db, clock, runner: "backend-c" });
    const gone = async (runner: string | null) => runner === "backend-a";
    const adopted = await survivor.adoptInterrupted(gone);
    expect(adopted).toEqual([
      expect.objectContaining({ id: "cut-off", stack: "api", running: true, runner: "backend-c" }),
    ]);
    expect(await survivor.adoptInterrupted(gone)).toEqual([]);
    await survivor.finish("cut-off", {
      success: false,
      message: INTERRUPTED_MESSAGE,
      finishedAt: new Date(clock.now()),
    });
    expect((await history.list({}, EVERY_STACK)).entries[0]).toMatchObject({
      id: "cut-off",
      success: false,
      message: INTERRUPTED_MESSAGE,
    });
    expect((await history.list({}, EVERY_STACK)).entries[0]!.createdAt.getTime()).toBe(clock.now());
    expect(await survivor.adoptInterrupted(async (runner) => runner === "backend-b")).toEqual([
      expect.objectContaining({ id: "elsewhere", running: true, runner: "backend-c" }),
    ]);
    await fresh.close();
  });
});

describe("history pages", () => {
  const after = { createdAt: new Date("2026-11-21T00:30:00Z"), id: "run-40" };
  // SQLite has no statistics to choose an index by: the query itself must lead it to the right one.
  const plan = async (query: HistoryPageQuery, stacks?: string[]) => {
    const path = join(directory, "plan.sqlite");
    const planned = await openDatabase({ sqlitePath: path });
    const { sql, params } = selectPage(
      planned.db,
      query,
      stacks ? visibilityOf({ stacks }) : EVERY_STACK,
    ).toSQL();
    await planned.close();
    const sqlite = new Sqlite(path, { readonly: true });
    const steps = sqlite
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((step) => (step as { detail: string }).detail)
      .join(" | ");
    sqlite.close();
    return steps;
  };

  it.skipIf(onPostgres()).each<[string, HistoryPageQuery, string]>([
    ["the newest", {}, "SCAN deploy_history USING INDEX deploy_history_created_at_id_idx"],
    ["an older page", { after }, "deploy_history_created_at_id_idx ((created_at,id)<(?,?))"],
    ["one stack", { stack: "web", after }, "deploy_history_stack_idx (stack=? AND (created_at,id)<(?,?))"],
    ["one caller", { actor: "Ada", after }, "deploy_history_actor_idx (actor=? AND (created_at,id)<(?,?))"],
    [
      "failures",
      { outcome: "failure", after },
      "deploy_history_success_idx (success=? AND (created_at,id)<(?,?))",
    ],
    ["people", { via: "session", after }, "deploy_history_created_at_id_idx ((created_at,id)<(?,?))"],
    [
      "all filters at once",
      { stack: "web", actor: "Ada", via: "session", outcome: "success", after },
      "deploy_history_stack_idx (stack=? AND (created_at,id)<(?,?))",
    ],
  ])(
    "reads %s from an index in page order, for everyone and for a scoped key (SQLite)",
    async (_, query, expected) => {
      for (const stacks of [undefined, ["web-*", "api"]]) {
        const steps = await plan(query, stacks);
        expect(steps).toContain(expected);
        expect(steps).not.toMatch(/TEMP B-TREE|MULTI-INDEX/);
      }
    },
  );

  it("narrows by every filter at once, and pages on where the last page ended", async () => {
    const fresh = await openTestDatabase(directory, "pages");
    const history = createHistoryService({ db: fresh.db, clock });
    const webFailures = [
      entry("2026-11-20T10:00:00Z", "web", false),
      entry("2026-11-21T10:00:00Z", "web", false),
    ];
    for (const item of [
      ...webFailures,
      entry("2026-11-21T11:00:00Z", "web", true),
      entry("2026-11-21T12:00:00Z", "api", false),
      { ...entry("2026-11-21T13:00:00Z", "web", false), actor: "API Key: ci", via: "apiKey" as const },
    ])
      await history.record(item);

    const filters = { stack: "web", actor: "Ada", via: "session", outcome: "failure" } as const;
    const newest = await history.list({ ...filters, limit: 1 }, EVERY_STACK);
    expect(newest.entries).toEqual([expect.objectContaining({ id: webFailures[1]!.id })]);
    expect(newest.next).toEqual({ createdAt: webFailures[1]!.createdAt, id: webFailures[1]!.id });
    const older = await history.list({ ...filters, limit: 1, after: newest.next! }, EVERY_STACK);
    expect(older).toEqual({ entries: [expect.objectContaining({ id: webFailures[0]!.id })], next: null });
    expect((await history.list({ via: "apiKey" }, EVERY_STACK)).entries.map((item) => item.actor)).toEqual([
      "API Key: ci",
    ]);
    await fresh.close();
  });
});
