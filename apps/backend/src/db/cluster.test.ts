import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../platform/logger.ts";
import { createTestDatabase, testPostgresServer } from "../testing/postgres.ts";
import { type Cluster, openCluster } from "./cluster.ts";

const server = testPostgresServer();

describe.skipIf(!server)("backends on one PostgreSQL database", () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  let first: Cluster;
  let second: Cluster;

  beforeAll(async () => {
    process.on("warning", onWarning);
    const postgresUrl = await createTestDatabase(server!);
    const logger = createLogger("silent");
    [first, second] = await Promise.all([
      openCluster({ postgresUrl }, logger),
      openCluster({ postgresUrl }, logger),
    ]);
  });
  afterAll(async () => {
    process.off("warning", onWarning);
    await Promise.all([first?.close(), second?.close()]);
  });

  it("share locks and messages under load, one query at a time on each connection", async () => {
    const heard: number[] = [];
    second.subscribe("count", (body) => heard.push(body as number));
    let inside = 0;
    let overlapped = false;
    const holdTheLock = (cluster: Cluster) =>
      cluster.exclusive("stack:web", async () => {
        inside += 1;
        overlapped ||= inside > 1;
        await new Promise((resolve) => setTimeout(resolve, 2));
        inside -= 1;
      });

    // Within a backend its stack lanes take turns; across backends only the lock keeps them apart.
    const takeTurns = async (cluster: Cluster) => {
      for (let turn = 0; turn < 10; turn += 1) await holdTheLock(cluster);
    };
    // Locks, releases, messages and liveness checks all at once, as a busy backend sends them.
    await Promise.all([
      takeTurns(first),
      takeTurns(second),
      ...Array.from({ length: 200 }, (_, count) => Promise.resolve(first.publish("count", count))),
      ...Array.from({ length: 20 }, () => first.isGone(second.id)),
    ]);

    expect(overlapped).toBe(false);
    await expect.poll(() => heard.length, { timeout: 10_000 }).toBe(200);
    expect(heard).toEqual(Array.from({ length: 200 }, (_, count) => count));
    expect(await first.isGone(second.id)).toBe(false);
    expect(warnings.filter((message) => /already executing a query/.test(message))).toEqual([]);
  });
});
