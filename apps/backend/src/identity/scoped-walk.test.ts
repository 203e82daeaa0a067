import { contract } from "@stackgate/contract";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deadlineIn } from "../platform/deadline.ts";
import { openEventStream } from "../testing/event-stream.ts";
import { startConnectedBackend } from "../testing/harness.ts";
import { visibilityOf } from "./apikeys/scope.ts";

/**
 * Every procedure an API key may call, walked with a key scoped to `web-*`: none lets it learn of
 * a stack outside its scope. A hidden stack's run, image and name are answered exactly as ones
 * that do not exist. A new procedure fails here until it says how a scoped key calls it.
 */
const HIDDEN = "secret-db";
const HIDDEN_IMAGE = "acme/secret-db:1";
const VISIBLE = "web-1";
const VISIBLE_IMAGE = "acme/web:1";

let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let scopedKey: string;
const runs = { hidden: "", visible: "" };

interface Answer {
  status: number;
  text: string;
}
type Request = { method?: string; json?: unknown; prefer?: string };
const asKey = (key: string, path: string, { method = "GET", json, prefer }: Request = {}) =>
  world.app.request(path, {
    method,
    json,
    headers: { "x-api-key": key, ...(prefer ? { prefer } : {}) },
  });
const asScoped = (path: string, request?: Request) => asKey(scopedKey, path, request);
/** The answer about something that does not exist, with its name where the hidden one's was. */
const asIfAbsent = (answer: Answer, absent: string, hidden: string) => ({
  status: answer.status,
  text: answer.text.replaceAll(absent, hidden),
});

async function deployAndWait(stack: string, key = world.key) {
  const started = await asKey(key, "/api/v0/deploy", {
    method: "POST",
    json: { stack, action: "pull" },
    prefer: "respond-async",
  });
  expect(started.status, started.text).toBe(202);
  const id = started.json.run.id as string;
  await vi.waitFor(
    async () => expect((await asKey(key, `/api/v0/deploy/runs/${id}`)).json.run.status).toBe("finished"),
    { timeout: 10_000, interval: 50 },
  );
  return id;
}

beforeAll(async () => {
  world = await startConnectedBackend({
    komodo: {
      stacks: [
        { name: VISIBLE, services: [{ service: "web", image: VISIBLE_IMAGE }] },
        { name: HIDDEN, services: [{ service: "db", image: HIDDEN_IMAGE }] },
      ],
    },
  });
  const created = await world.app.request("/api/v0/apikeys", {
    method: "POST",
    headers: { cookie: world.cookie },
    json: { name: "walker", scope: { stacks: ["web-*"] } },
  });
  scopedKey = created.json.key;
  runs.hidden = await deployAndWait(HIDDEN);
  runs.visible = await deployAndWait(VISIBLE);
});
afterAll(() => world.close());

/** Each procedure, called as a scoped key would: its answers, each checked for leaks by the walk. */
const walks: Record<string, () => Promise<Answer[]>> = {
  "stacks.list": async () => {
    const listed = await asScoped("/api/v0/stacks");
    expect(listed.json.stacks.map((stack: { name: string }) => stack.name)).toEqual([VISIBLE]);
    return [listed];
  },
  "deploy.run": async () => {
    const hidden = await asScoped("/api/v0/deploy", {
      method: "POST",
      json: { stack: HIDDEN, action: "pull" },
    });
    const absent = await asScoped("/api/v0/deploy", {
      method: "POST",
      json: { stack: "no-such", action: "pull" },
    });
    expect(hidden.status).toBe(403);
    expect(hidden).toMatchObject(asIfAbsent(absent, "no-such", HIDDEN));
    const visible = await asScoped("/api/v0/deploy", {
      method: "POST",
      json: { stack: VISIBLE, action: "pull" },
    });
    expect(visible.status, visible.text).toBe(200);
    return [visible];
  },
  "deploy.check": async () => {
    const hidden = await asScoped(`/api/v0/deploy/check?stack=${HIDDEN}&action=pull`);
    const absent = await asScoped("/api/v0/deploy/check?stack=no-such&action=pull");
    expect(hidden.status).toBe(403);
    expect(hidden).toMatchObject(asIfAbsent(absent, "no-such", HIDDEN));
    const unknown = await asScoped("/api/v0/deploy/check?stack=web-unknown&action=pull");
    expect(unknown.json.exists).toBe(false);
    const visible = await asScoped(`/api/v0/deploy/check?stack=${VISIBLE}&action=pull`);
    expect(visible.json.exists).toBe(true);
    return [unknown, visible];
  },
  "deploy.getRun": async () => {
    const hidden = await asScoped(`/api/v0/deploy/runs/${runs.hidden}`);
    const absent = await asScoped("/api/v0/deploy/runs/no-such-run");
    expect(hidden.status).toBe(404);
    expect(hidden).toMatchObject(asIfAbsent(absent, "no-such-run", runs.hidden));
    const visible = await asScoped(`/api/v0/deploy/runs/${runs.visible}`);
    expect(visible.json.run.stack).toBe(VISIBLE);
    return [visible];
  },
  "deploy.getRunLogs": async () => {
    const hidden = await asScoped(`/api/v0/deploy/runs/${runs.hidden}/logs`);
    const absent = await asScoped("/api/v0/deploy/runs/no-such-run/logs");
    expect(hidden.status).toBe(404);
    expect(hidden).toMatchObject(asIfAbsent(absent, "no-such-run", runs.hidden));
    const visible = await asScoped(`/api/v0/deploy/runs/${runs.visible}/logs`);
    expect(visible.json.stages.length).toBeGreaterThan(0);
    return [visible];
  },
  "stacks.services": async () => {
    const hidden = await asScoped(`/api/v0/stacks/${HIDDEN}/services`);
    const absent = await asScoped("/api/v0/stacks/no-such/services");
    expect(hidden.status).toBe(404);
    expect(hidden).toMatchObject(asIfAbsent(absent, "no-such", HIDDEN));
    const visible = await asScoped(`/api/v0/stacks/${VISIBLE}/services`);
    expect(visible.json.services.map((service: { service: string }) => service.service)).toEqual(["web"]);
    return [visible];
  },
  "deploy.events": async () => {
    const stream = await openEventStream(`${world.app.url}/api/v0/deploy/events`, { "x-api-key": scopedKey });
    try {
      const subscribed = await stream.next();
      expect(subscribed.type).toBe("subscribed");
      await deployAndWait(HIDDEN);
      await deployAndWait(VISIBLE);
      const seen = [await stream.next()];
      while (seen.at(-1).type !== "finished") seen.push(await stream.next());
      // A log event names its stack; the others carry their run.
      expect(new Set(seen.map((event) => event.run?.stack ?? event.stack))).toEqual(new Set([VISIBLE]));
      return [{ status: stream.response.status, text: stream.rawChunks.join("") }];
    } finally {
      stream.close();
    }
  },
  "history.list": async () => {
    const all = await asScoped("/api/v0/history");
    expect(all.json.history.length).toBeGreaterThan(0);
    const narrowed = await asScoped(`/api/v0/history?stack=${HIDDEN}`);
    expect(narrowed.json.history).toEqual([]);
    return [all, narrowed];
  },
  "history.overview": async () => {
    const overview = await asScoped("/api/v0/history/overview");
    expect(overview.json.perStack.map((entry: { stack: string }) => entry.stack)).toEqual([VISIBLE]);
    return [overview];
  },
  "scans.images": async () => {
    const images = await asScoped("/api/v0/security/images");
    expect(images.json.images.map((image: { image: string }) => image.image)).toEqual([VISIBLE_IMAGE]);
    return [images];
  },
  "scans.image": async () => {
    const hidden = await asScoped(`/api/v0/security/image?image=${encodeURIComponent(HIDDEN_IMAGE)}`);
    const absent = await asScoped(`/api/v0/security/image?image=${encodeURIComponent("acme/no-such:1")}`);
    expect(hidden.status).toBe(404);
    expect(hidden).toMatchObject(asIfAbsent(absent, "acme/no-such:1", HIDDEN_IMAGE));
    return [await asScoped(`/api/v0/security/image?image=${encodeURIComponent(VISIBLE_IMAGE)}`)];
  },
  "scans.scan": async () => {
    const hidden = await asScoped("/api/v0/security/scan", {
      method: "POST",
      json: { images: [HIDDEN_IMAGE] },
    });
    const absent = await asScoped("/api/v0/security/scan", {
      method: "POST",
      json: { images: ["acme/no-such:1"] },
    });
    expect(hidden.status).toBe(400);
    expect(hidden).toMatchObject(asIfAbsent(absent, "acme/no-such:1", HIDDEN_IMAGE));
    const everything = await asScoped("/api/v0/security/scan", { method: "POST", json: {} });
    expect(everything.status, everything.text).toBe(200);
    return [everything];
  },
};

/**
 * The procedures that admit a key without their read by its own runs (`orOwnRuns`), walked with a
 * key scoped to `web-*` that reads nothing: it sees the runs it started, and no other run, not even
 * of its own stacks.
 */
const ownRunWalks: Record<string, (key: string, own: string) => Promise<Answer[]>> = {
  "deploy.getRun": async (key, own) => {
    const absent = await asKey(key, "/api/v0/deploy/runs/no-such-run");
    for (const other of [runs.hidden, runs.visible]) {
      const answer = await asKey(key, `/api/v0/deploy/runs/${other}`);
      expect(answer.status).toBe(404);
      expect(answer).toMatchObject(asIfAbsent(absent, "no-such-run", other));
    }
    const mine = await asKey(key, `/api/v0/deploy/runs/${own}`);
    expect(mine.json.run).toMatchObject({ id: own, stack: VISIBLE });
    return [mine];
  },
  "deploy.getRunLogs": async (key, own) => {
    const absent = await asKey(key, "/api/v0/deploy/runs/no-such-run/logs");
    for (const other of [runs.hidden, runs.visible]) {
      const answer = await asKey(key, `/api/v0/deploy/runs/${other}/logs`);
      expect(answer.status).toBe(404);
      expect(answer).toMatchObject(asIfAbsent(absent, "no-such-run", other));
    }
    const mine = await asKey(key, `/api/v0/deploy/runs/${own}/logs`);
    expect(mine.json.stages.length).toBeGreaterThan(0);
    return [mine];
  },
  "deploy.events": async (key) => {
    const stream = await openEventStream(`${world.app.url}/api/v0/deploy/events`, { "x-api-key": key });
    try {
      expect(await stream.next()).toEqual({ type: "subscribed", running: [] });
      await deployAndWait(HIDDEN);
      await deployAndWait(VISIBLE);
      const mine = await deployAndWait(VISIBLE, key);
      const seen = [await stream.next()];
      while (seen.at(-1).type !== "finished") seen.push(await stream.next());
      // A log event names its run; the others carry it.
      expect(new Set(seen.map((event) => event.run?.id ?? event.runId))).toEqual(new Set([mine]));
      return [{ status: stream.response.status, text: stream.rawChunks.join("") }];
    } finally {
      stream.close();
    }
  },
};

/** The procedures an API key may call, by name (`deploy.run`). */
function keyProcedures(router: object, prefix = ""): { name: string; keyScope: unknown }[] {
  return Object.entries(router).flatMap(([name, value]) => {
    const definition = (value as { "~orpc"?: { meta: { access?: string; keyScope?: unknown } } })["~orpc"];
    if (!definition) return keyProcedures(value as object, `${prefix}${name}.`);
    return definition.meta.access === "keyOrSession"
      ? [{ name: prefix + name, keyScope: definition.meta.keyScope }]
      : [];
  });
}

describe("a key scoped to web-* never learns of another stack", () => {
  it.each(keyProcedures(contract))("$name", async ({ name, keyScope }) => {
    expect(keyScope, `${name} declares no keyScope in the contract`).toBeDefined();
    const walk = walks[name];
    expect(walk, `say here how a scoped key calls ${name}, and what it must not see`).toBeDefined();
    for (const answer of await walk!()) {
      expect(answer.status, answer.text).toBeLessThan(300);
      expect(answer.text).not.toContain(HIDDEN);
      expect(answer.text).not.toContain(runs.hidden);
    }
  });
});

describe("a key scoped to web-* that reads nothing follows only the runs it started", () => {
  const ownRunProcedures = keyProcedures(contract).filter(
    ({ keyScope }) => (keyScope as { orOwnRuns?: true }).orOwnRuns === true,
  );
  let key: string;
  let own: string;
  beforeAll(async () => {
    const created = await world.app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie: world.cookie },
      json: { name: "own-runs", scope: { stacks: ["web-*"], actions: ["pull"], read: [] } },
    });
    key = created.json.key;
    own = await deployAndWait(VISIBLE, key);
  });

  it("the procedures that admit a key by its own runs are walked here", () => {
    expect(ownRunProcedures.map(({ name }) => name).sort()).toEqual(Object.keys(ownRunWalks).sort());
  });

  it.each(ownRunProcedures)("$name", async ({ name }) => {
    for (const answer of await ownRunWalks[name]!(key, own)) {
      expect(answer.status, answer.text).toBeLessThan(300);
      expect(answer.text).not.toContain(HIDDEN);
      expect(answer.text).not.toContain(runs.hidden);
      expect(answer.text).not.toContain(runs.visible);
    }
  });

  it("the procedures it reads nothing of stay closed to it", async () => {
    for (const path of ["/api/v0/history", "/api/v0/stacks", "/api/v0/security/images"])
      expect((await asKey(key, path)).status, path).toBe(403);
  });
});

describe("services that act on one stack", () => {
  it("refuse a stack outside the visibility they are given, as if it did not exist, before Komodo hears of it", async () => {
    const { stacks } = world.app.backend.services;
    const webOnly = visibilityOf({ stacks: ["web-*"] });
    const before = world.komodo.calls.length;
    const refusals = await Promise.allSettled([
      stacks.remove(HIDDEN, webOnly, deadlineIn(1000), { id: null, name: "test" }),
      stacks.pollForUpdates(HIDDEN, webOnly),
      stacks.setPollForUpdates(HIDDEN, webOnly, true, { id: null, name: "test" }),
    ]);
    for (const refusal of refusals) {
      expect(refusal.status).toBe("rejected");
      expect(String((refusal as PromiseRejectedResult).reason)).toContain(`No stack named '${HIDDEN}'`);
    }
    expect(world.komodo.calls.length).toBe(before);
  });
});
