import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KomodoSimulator, startKomodoSimulator } from "@stackgate/simulators";
import Sqlite from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openEventStream } from "../testing/event-stream.ts";
import { type BackendProcess, postJson, signInAdmin, startBackendProcess } from "./backend-process.ts";

const PASSWORD = "shutdown-password-1";

let komodo: KomodoSimulator;
let backend: BackendProcess;
let url: string;
let dataDir: string;

beforeAll(async () => {
  komodo = await startKomodoSimulator({ stacks: 40, faults: { updateDelayMs: 800 } });
  komodo.addStack({ name: "glacial", faults: { updateDelayMs: 60_000 } });
  dataDir = mkdtempSync(join(tmpdir(), "stackgate-shutdown-"));
  backend = await startBackendProcess({
    dataDir,
    adminPassword: PASSWORD,
    env: { SHUTDOWN_GRACE_SECONDS: "3" },
  });
  url = backend.url;
});
afterAll(async () => {
  backend.child.kill("SIGKILL");
  await komodo.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it("on SIGTERM finishes running deploys, records every acknowledged one, ends streams and exits within 10 s", async () => {
  const cookie = await signInAdmin(url, PASSWORD);
  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    postJson(url + path, body, headers);
  await post(
    "/api/v0/deploy/credentials",
    { name: "k", url: komodo.url, key: komodo.key, secret: komodo.secret },
    { cookie },
  );
  const { key } = (await (await post("/api/v0/apikeys", { name: "burst" }, { cookie })).json()) as {
    key: string;
  };
  const stream = await openEventStream(`${url}/api/v0/deploy/events`, { "x-api-key": key });
  await stream.next();

  const names = (
    (await (await fetch(`${url}/api/v0/stacks`, { headers: { "x-api-key": key } })).json()) as {
      stacks: { name: string }[];
    }
  ).stacks.map((stack) => stack.name);
  expect(names).toHaveLength(41);

  const deploy = (stack: string) =>
    post("/api/v0/deploy", { stack, action: "pull" }, { "x-api-key": key }).then(
      async (response) => ({
        stack,
        status: response.status,
        body: (await response.json()) as { message: string },
      }),
      () => ({ stack, status: 0, body: { message: "connection refused or reset: never acknowledged" } }),
    );
  const outcomes = names.map(deploy);
  const started = new Set<string>();
  const finished = new Set<string>();
  const record = (event: { type: string; run: { stack: string } }) => {
    if (event.type === "started") started.add(event.run.stack);
    if (event.type === "finished") finished.add(event.run.stack);
  };
  while (started.size < names.length) record(await stream.next());
  // A run started asynchronously is handled like the others: finished within the grace, or recorded as interrupted.
  komodo.addStack({ name: "glacial-async", faults: { updateDelayMs: 60_000 } });
  const accepted = await post(
    "/api/v0/deploy",
    { stack: "glacial-async", action: "pull" },
    {
      "x-api-key": key,
      prefer: "respond-async",
    },
  );
  expect(accepted.status).toBe(202);
  while (!started.has("glacial-async")) record(await stream.next());

  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    backend.child.once("exit", (code) => resolve({ code, at: performance.now() })),
  );
  const signalledAt = performance.now();
  backend.child.kill("SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 50));
  const late = await Promise.all(["late-1", "late-2", "late-3"].map(deploy));

  const results = await Promise.all(outcomes);
  const { code, at } = await exited;
  expect(code).toBe(0);
  expect(at - signalledAt).toBeLessThan(10_000);

  // Every deploy that had started is answered: done within the grace period (200), or abandoned
  // after it (503; on a loaded machine some 800 ms deploys may be), never left without an answer.
  for (const result of results) {
    if (result.status === 503) expect(result.body.message).toMatch(/stopped before Komodo finished/);
    else expect(result.status).toBe(200);
  }
  expect(results.filter((result) => result.status === 200).length).toBeGreaterThan(names.length / 2);
  expect(results.find((result) => result.stack === "glacial")!.status).toBe(503);

  const acknowledged = [...results, ...late].filter((result) => result.status > 0);
  const database = new Sqlite(join(dataDir, "db.sqlite"), { readonly: true });
  const rows = database.prepare("select stack, success, message from deploy_history").all() as {
    stack: string;
    success: number;
    message: string;
  }[];
  database.close();
  for (const result of acknowledged) {
    const row = rows.find((candidate) => candidate.stack === result.stack);
    expect(row, result.stack).toBeDefined();
    expect(Boolean(row!.success)).toBe(result.status === 200);
    expect(row!.message).toBe(result.body.message);
  }

  // Subscribers saw every started run finish before their stream was ended.
  await expect(
    (async () => {
      for (;;) record(await stream.next(2000));
    })(),
  ).rejects.toThrow(/ended/);
  for (const stack of [...names, "glacial-async"]) expect(finished, stack).toContain(stack);
  const asyncRow = rows.find((row) => row.stack === "glacial-async");
  expect(asyncRow).toMatchObject({
    success: 0,
    message: expect.stringMatching(/stopped before Komodo finished/),
  });
}, 30_000);
