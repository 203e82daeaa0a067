import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { onPostgres } from "../testing/database.ts";
import { openEventStream } from "../testing/event-stream.ts";
import { ADMIN, startConnectedBackend } from "../testing/harness.ts";

type World = Awaited<ReturnType<typeof startConnectedBackend>>;

const STACKS = { stacks: [{ name: "web", state: "running" as const }] };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const deploy = ({ app, key }: World, headers: Record<string, string> = {}) =>
  app.request("/api/v0/deploy", {
    method: "POST",
    headers: { "x-api-key": key, ...headers },
    json: { stack: "web", action: "pull" },
  });
/** The key of a request refused during the outage: free again once the database is back. */
const OUTAGE_KEY = "release-during-outage";
const executes = ({ komodo }: World) => komodo.calls.filter((call) => call.api === "execute");

/**
 * While the database will not take writes: deploys are refused with 503 before anything reaches
 * Komodo and leave no run behind; reads and /doc keep answering.
 */
async function expectRefusedWhileDown(world: World, problem: RegExp) {
  const { app, cookie, key } = world;
  world.komodo.clearCalls();
  const askedAt = performance.now();
  const refused = await deploy(world);
  const answeredAfterMs = performance.now() - askedAt;
  expect(refused.status).toBe(503);
  expect(refused.json).toMatchObject({ success: false, stack: "web", action: "pull" });
  expect(refused.json.message).toMatch(problem);
  expect(refused.json.message).toContain("'pull' of 'web' was not started and nothing was sent to Komodo");
  expect(answeredAfterMs).toBeLessThan(3000);
  expect(executes(world)).toEqual([]);
  // Asked asynchronously with an idempotency key: the same 503, not a 202, and the key is not taken.
  const refusedAsync = await deploy(world, { prefer: "respond-async", "idempotency-key": OUTAGE_KEY });
  expect(refusedAsync.status).toBe(503);
  expect(refusedAsync.json.message).toContain(
    "'pull' of 'web' was not started and nothing was sent to Komodo",
  );
  expect(executes(world)).toEqual([]);

  const stream = await openEventStream(`${app.url}/api/v0/deploy/events`, { "x-api-key": key });
  expect(await stream.next()).toEqual({ type: "subscribed", running: [] });
  stream.close();

  expect((await app.request("/doc")).status).toBe(200);
  expect((await app.request("/api/v0/history", { headers: { "x-api-key": key } })).status).toBe(200);
  expect((await app.request("/api/v0/apikeys", { headers: { cookie } })).status).toBe(200);
}

/** Once the database takes writes again, deploys run and are recorded, without a restart. */
async function expectRecovered(world: World) {
  const done = await deploy(world, { "idempotency-key": OUTAGE_KEY });
  expect(done.status).toBe(200);
  expect(executes(world).map((call) => call.type)).toEqual(["PullStack"]);
  const { history } = (await world.app.request("/api/v0/history", { headers: { "x-api-key": world.key } }))
    .json;
  expect(history[0]).toMatchObject({ stack: "web", action: "pull", success: true });
  expect(history).toHaveLength(1);
}

// SQLite's own surroundings (a lock held by another process, a full disk under DATA_DIR);
// postgres-outage.test.ts is PostgreSQL's server going away.
describe.skipIf(onPostgres())("a database locked by another process", () => {
  it("refuses deploys with 503 at once, sends nothing to Komodo, keeps reads answering, and recovers", async () => {
    const world = await startConnectedBackend({ komodo: STACKS });
    cleanups.push(() => world.close());
    const other = new Sqlite(join(world.app.dataDir, "db.sqlite"));
    cleanups.push(() => other.close());

    other.exec("BEGIN EXCLUSIVE");
    const busy = /^The database is busy \(another process holds a lock on it\)/;
    await expectRefusedWhileDown(world, busy);
    // Any other write is answered the same way, by the one mapping of database failures.
    const write = await world.app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie: world.cookie },
      json: { name: "while-locked" },
    });
    expect(write.status).toBe(503);
    expect(write.json).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503 });
    expect(write.json.message).toMatch(busy);
    // Signing in writes a session: the same clear 503, not Better Auth's bare 500.
    const signIn = await world.app.request("/api/auth/sign-in/email", {
      method: "POST",
      json: { email: ADMIN.email, password: ADMIN.password },
    });
    expect(signIn.status).toBe(503);
    expect(signIn.json.message).toMatch(busy);
    other.exec("ROLLBACK");
    await expectRecovered(world);
    await world.app.signIn();
  });
});

describe.skipIf(onPostgres())("a database locked while a deploy runs", () => {
  it("answers the real outcome, empties the live set, and writes the outcome once the lock is gone", async () => {
    const world = await startConnectedBackend({
      komodo: { stacks: [{ name: "web", state: "running", faults: { updateDelayMs: 1000 } }] },
    });
    cleanups.push(() => world.close());
    const other = new Sqlite(join(world.app.dataDir, "db.sqlite"));
    cleanups.push(() => other.close());
    const history = async () =>
      (await world.app.request("/api/v0/history", { headers: { "x-api-key": world.key } })).json.history;

    const answer = deploy(world);
    await vi.waitFor(() => expect(executes(world)).toHaveLength(1), { interval: 10 });
    other.exec("BEGIN EXCLUSIVE");
    const done = await answer;
    expect(done.status).toBe(200);
    const stream = await openEventStream(`${world.app.url}/api/v0/deploy/events`, { "x-api-key": world.key });
    expect(await stream.next()).toEqual({ type: "subscribed", running: [] });
    stream.close();
    // Still running on record, and a running row is not shown.
    expect(await history()).toEqual([]);

    other.exec("ROLLBACK");
    await vi.waitFor(
      async () =>
        expect(await history()).toEqual([
          expect.objectContaining({
            stack: "web",
            action: "pull",
            success: true,
            message: done.json.message,
          }),
        ]),
      { timeout: 10_000, interval: 100 },
    );
  });
});

describe.skipIf(onPostgres())("a full disk under DATA_DIR", () => {
  it("refuses deploys with 503, sends nothing to Komodo, leaves no run behind, and recovers", async (context) => {
    const mountPoint = mkdtempSync(join(tmpdir(), "stackgate-full-disk-"));
    cleanups.push(() => rmSync(mountPoint, { recursive: true, force: true }));
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint], { stdio: "pipe" });
    } catch (error) {
      console.warn(
        `\n!!! SKIPPED: the full-disk test needs to mount a tmpfs (run as root): ${String(error).split("\n")[0]}\n`,
      );
      context.skip();
    }
    cleanups.push(() => execFileSync("umount", [mountPoint]));
    const dataDir = join(mountPoint, "data");
    const world = await startConnectedBackend({ komodo: STACKS, dataDir });
    cleanups.push(async () => {
      await world.app.close({ keepData: true });
      await world.komodo.close();
    });

    // An emptied WAL makes the next write need new space, so it meets the full disk for sure (a
    // write that fits in space the WAL already holds succeeds even on a full disk).
    const other = new Sqlite(join(dataDir, "db.sqlite"));
    other.pragma("wal_checkpoint(TRUNCATE)");
    other.close();
    const filler = join(mountPoint, "filler");
    fill(filler);

    await expectRefusedWhileDown(
      world,
      /^The database is full \(no space left on the disk that holds DATA_DIR\)/,
    );
    unlinkSync(filler);
    await expectRecovered(world);
  });
});

/** Writes zeros to `path` until the file system has no space left. */
function fill(path: string) {
  const descriptor = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(descriptor, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(descriptor);
  }
}
