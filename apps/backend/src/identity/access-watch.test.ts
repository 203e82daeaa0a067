import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { apiKey, session, user } from "../db/schema.ts";
import { createLogger } from "../platform/logger.ts";
import { manualClock } from "../testing/clock.ts";
import { openTestDatabase } from "../testing/database.ts";
import { createAccessWatch } from "./access-watch.ts";
import { EVERY_STACK, runsVisibleIn } from "./apikeys/scope.ts";
import type { Caller } from "./caller.ts";

// The cadence the streams' "within a second" rests on, without a loaded machine's timing: the
// loss is seen at the first check after it (every 250 ms), and never before.
const clock = manualClock();
let database: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  database = await openTestDatabase(mkdtempSync(join(tmpdir(), "stackgate-watch-")));
  await database.db.transaction(async (tx) => {
    await tx.insert(user).values({ id: "u1", name: "Ada", email: "ada@example.test" });
    await tx.insert(apiKey).values({
      id: "k1",
      userId: "u1",
      name: "ci",
      start: "sg_x",
      keyHash: "h1",
      expiresAt: new Date(clock.now() + 60_000),
    });
    await tx
      .insert(session)
      .values({ id: "s1", userId: "u1", token: "t1", expiresAt: new Date(clock.now() + 3_600_000) });
  });
});
afterAll(() => database.close());
afterEach(() => vi.useRealTimers());

const someone = {
  userId: "u1",
  email: "ada@example.test",
  actorName: "Ada",
  role: "admin" as const,
  stacks: EVERY_STACK,
  runs: runsVisibleIn(EVERY_STACK),
};
const byKey: Caller = { ...someone, via: "apiKey", keyId: "k1", scope: null };
const bySession: Caller = { ...someone, via: "session", sessionId: "s1" };

/** Lets the check that a tick started (a query) finish. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("the access watch", () => {
  it("sees a key expire at its next check, 250 ms at most, and ends every stream that shares it", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const watch = createAccessWatch({ db: database.db, clock, logger: createLogger("silent") });
    const lost = vi.fn();
    const stops = Array.from({ length: 1000 }, () => watch.watch(byKey, () => lost()));
    await vi.advanceTimersByTimeAsync(250);
    await settle();
    expect(lost).not.toHaveBeenCalled();
    clock.advance(60_000);
    await vi.advanceTimersByTimeAsync(249);
    await settle();
    expect(lost).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => expect(lost).toHaveBeenCalledTimes(1000));
    for (const stop of stops) stop();
    watch.close();
  });

  it("sees a session's owner disabled at the next check; a stopped watch calls nothing", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const watch = createAccessWatch({ db: database.db, clock, logger: createLogger("silent") });
    const lost = vi.fn();
    const ignored = vi.fn();
    watch.watch(bySession, lost);
    watch.watch(bySession, ignored)();
    await database.db.transaction((tx) => tx.update(user).set({ disabled: true }).where(eq(user.id, "u1")));
    await vi.advanceTimersByTimeAsync(250);
    await vi.waitFor(() => expect(lost).toHaveBeenCalledTimes(1));
    expect(ignored).not.toHaveBeenCalled();
    watch.close();
  });
});
