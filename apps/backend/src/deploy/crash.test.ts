import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type KomodoSimulator,
  type NtfyReceiver,
  startKomodoSimulator,
  startNtfyReceiver,
} from "@stackgate/simulators";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { INTERRUPTED_MESSAGE } from "../history/service.ts";
import { openEventStream } from "../testing/event-stream.ts";
import { type BackendProcess, postJson, signInAdmin, startBackendProcess } from "./backend-process.ts";

const PASSWORD = "crash-password-1";
const SLOW = Array.from({ length: 15 }, (_, index) => `slow-${index}`);
const QUICK = Array.from({ length: 15 }, (_, index) => `quick-${index}`);

let komodo: KomodoSimulator;
let ntfy: NtfyReceiver;
let dataDir: string;
const started: BackendProcess[] = [];

beforeAll(async () => {
  komodo = await startKomodoSimulator({ stacks: [] });
  // Held inside Komodo until the test lets them end, after the backend that sent them is gone.
  for (const name of SLOW) komodo.addStack({ name, faults: { holdUpdates: true } });
  for (const name of QUICK) komodo.addStack({ name, faults: { updateDelayMs: 50 } });
  ntfy = await startNtfyReceiver();
  dataDir = mkdtempSync(join(tmpdir(), "stackgate-crash-"));
});
afterAll(async () => {
  for (const backend of started) backend.child.kill("SIGKILL");
  await komodo.close();
  await ntfy.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = async () => {
  const backend = await startBackendProcess({ dataDir, adminPassword: PASSWORD });
  started.push(backend);
  return backend;
};

interface Entry {
  stack: string;
  success: boolean;
  message: string;
}

it("after kill -9 during concurrent deploys, every action Komodo received is in the history", async () => {
  const first = await start();
  const cookie = await signInAdmin(first.url, PASSWORD);
  const post = (path: string, body: unknown, headers: Record<string, string> = { cookie }) =>
    postJson(first.url + path, body, headers);
  await post("/api/v0/deploy/credentials", {
    name: "k",
    url: komodo.url,
    key: komodo.key,
    secret: komodo.secret,
  });
  await post("/api/v0/deploy/credentials/notify", { url: ntfy.url, topic: "alerts", enabled: true });
  const { key } = (await (await post("/api/v0/apikeys", { name: "burst" })).json()) as { key: string };

  const answers = new Map<string, { status: number; message: string }>();
  for (const stack of [...SLOW, ...QUICK]) {
    void post("/api/v0/deploy", { stack, action: "pull-redeploy" }, { "x-api-key": key }).then(
      async (response) => {
        answers.set(stack, { status: response.status, message: ((await response.json()) as Entry).message });
      },
      () => {},
    );
  }
  const reached = () => new Set(komodo.calls.filter((call) => call.api === "execute").map(stackOf));
  // Killed while every slow deploy is inside Komodo, its Update noted (its step announced), whatever
  // the quick ones are doing.
  const stream = await openEventStream(`${first.url}/api/v0/deploy/events`, { "x-api-key": key });
  const onTheirStep = new Set<string>();
  await expect(stream.next()).resolves.toMatchObject({ type: "subscribed" });
  while (!SLOW.every((stack) => onTheirStep.has(stack))) {
    const event = await stream.next(20_000);
    if (event.type === "started" && event.run.step) onTheirStep.add(event.run.stack);
  }
  stream.close();
  first.child.kill("SIGKILL");
  await first.exited;

  const second = await start();
  // The slow pulls end in Komodo after their backend died: the new one records how they really ended.
  for (const stack of SLOW) komodo.releaseUpdates(stack);
  const historyNow = async () =>
    (
      (await (await fetch(`${second.url}/api/v0/history`, { headers: { "x-api-key": key } })).json()) as {
        history: Entry[];
      }
    ).history;
  await vi.waitFor(
    async () =>
      expect((await historyNow()).map((entry) => entry.stack)).toEqual(
        expect.arrayContaining([...reached()]),
      ),
    {
      timeout: 20_000,
      interval: 100,
    },
  );
  const history = { history: await historyNow() };
  for (const stack of reached()) {
    const entries = history.history.filter((entry) => entry.stack === stack);
    expect(entries, stack).toHaveLength(1);
    const [entry] = entries;
    const answer = answers.get(stack);
    if (answer) expect(entry).toMatchObject({ success: answer.status === 200, message: answer.message });
    else if (!entry!.success) expect(entry!.message).toMatch(/interrupted/);
  }
  // Their pull succeeded in Komodo; the take-down and deploy were never sent: that is what is recorded.
  for (const stack of SLOW) {
    const entry = history.history.find((each) => each.stack === stack)!;
    expect(entry.success).toBe(false);
    expect(entry.message).toMatch(
      /^interrupted after the pull step, which succeeded in Komodo; the rest was not sent \(recovered: /,
    );
  }
  expect(
    history.history
      .filter((entry) => entry.message === INTERRUPTED_MESSAGE)
      .every((entry) => !SLOW.includes(entry.stack)),
  ).toBe(true);

  // Published like any failed deploy: the alerts go out, and no run is left in the live set.
  await vi.waitFor(
    () =>
      expect(ntfy.published.map((message) => message.title)).toEqual(
        expect.arrayContaining(SLOW.map((stack) => `Deploy failed: pull-redeploy of ${stack}`)),
      ),
    { timeout: 10_000, interval: 20 },
  );
  const after = await openEventStream(`${second.url}/api/v0/deploy/events`, { "x-api-key": key });
  expect(await after.next()).toEqual({ type: "subscribed", running: [] });
  after.close();
}, 60_000);

function stackOf(call: { params: unknown }) {
  return (call.params as { stack: string }).stack;
}
