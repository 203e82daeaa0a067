import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConnectedBackend } from "../testing/harness.ts";
import type { NewHistoryEntry } from "./service.ts";

interface Entry {
  id: string;
  createdAt: string;
  actor: string;
  via: string;
  stack: string;
  success: boolean;
}
interface Page {
  history: Entry[];
  nextCursor: string | null;
}

let world: Awaited<ReturnType<typeof startConnectedBackend>>;
/** What was on record before the tests, newest first, as the list orders it. */
const seeded: NewHistoryEntry[] = [];

const STACKS = ["web-1", "web-2", "api"];
const ACTORS = [
  { actor: "Ada Admin", via: "session" as const },
  { actor: "API Key: nightly", via: "apiKey" as const },
];

beforeAll(async () => {
  world = await startConnectedBackend({
    komodo: {
      stacks: STACKS.map((name) => ({ name, services: [{ service: "app", image: `acme/${name}:1` }] })),
    },
  });
  // 250 actions of a past day, three to a millisecond, so pages also end between entries of one time.
  const start = Date.parse("2026-11-01T00:00:00Z");
  for (let index = 0; index < 250; index++) {
    const at = new Date(start + Math.floor(index / 3) * 60_000);
    seeded.push({
      id: `seed-${String(index).padStart(3, "0")}`,
      createdAt: at,
      startedAt: at,
      ...ACTORS[index % 2]!,
      stack: STACKS[index % 3]!,
      action: "pull",
      success: index % 5 !== 0,
      message: index % 5 !== 0 ? "Acción 'pull' completada para 'x'" : `failed ${index}`,
    });
  }
  for (const entry of seeded) await world.app.backend.services.history.record(entry);
  seeded.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
});
afterAll(() => world.close());

const get = (query: string, headers: Record<string, string> = { cookie: world.cookie }) =>
  world.app.request(`/api/v0/history${query}`, { headers });

/** Every page of a query, following nextCursor; `between` runs after each page. */
async function allPages(query: Record<string, string>, between: () => Promise<unknown> = async () => {}) {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams(cursor ? { ...query, cursor } : query);
    const response = await get(`?${params}`);
    expect(response.status, response.text).toBe(200);
    pages.push(response.json);
    cursor = response.json.nextCursor;
    await between();
  } while (cursor !== null);
  return pages;
}

const ids = (entries: readonly { id: string }[]) => entries.map((entry) => entry.id);
const deploy = (stack: string) =>
  world.app.request("/api/v0/deploy", {
    method: "POST",
    headers: { cookie: world.cookie },
    json: { stack, action: "pull" },
  });

describe("the default answer", () => {
  it("is still the last 100 actions, newest first, with the same fields", async () => {
    const response = await get("");
    expect(response.status).toBe(200);
    expect(Object.keys(response.json).sort()).toEqual(["history", "nextCursor"]);
    expect(ids(response.json.history)).toEqual(ids(seeded.slice(0, 100)));
    expect(Object.keys(response.json.history[0]).sort()).toEqual(
      [
        "action",
        "actor",
        "by",
        "changes",
        "commit",
        "createdAt",
        "id",
        "message",
        "settle",
        "stack",
        "success",
        "via",
      ].sort(),
    );
    expect(response.json.nextCursor).toEqual(expect.any(String));
  });
});

describe("paging", () => {
  it("walks past the newest 100 to the first action, without gaps or repeats while new actions arrive", async () => {
    const before = await get("?limit=1");
    const onRecord = [...ids(before.json.history), ...ids(seeded)].filter(
      (id, index, all) => all.indexOf(id) === index,
    );
    let deploys = 0;
    const pages = await allPages({ limit: "37" }, async () => {
      // A new action lands between every two pages: newer than all, it must not shift the next page.
      expect((await deploy(STACKS[deploys++ % 3]!)).status).toBe(200);
    });
    const walked = pages.flatMap((page) => page.history);
    const newest = walked[0]!.id;
    // The first page may already hold actions recorded by earlier tests; from there on, exactly the record.
    expect(ids(walked)).toEqual(onRecord.slice(onRecord.indexOf(newest)));
    expect(pages.slice(0, -1).every((page) => page.history.length === 37 && page.nextCursor)).toBe(true);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    expect(deploys).toBe(pages.length);
  });

  it("answers a null cursor, not an empty page after it, when a page holds exactly the last matches", async () => {
    const failures = seeded.filter((entry) => !entry.success && entry.stack === "api");
    const pages = await allPages({ stack: "api", outcome: "failure", limit: String(failures.length) });
    expect(pages.map((page) => page.history.length)).toEqual([failures.length]);
    expect(pages[0]!.nextCursor).toBeNull();
  });
});

describe("filters", () => {
  type Match = (entry: Pick<Entry, "stack" | "actor" | "via" | "success">) => boolean;
  it.each<[Record<string, string>, Match]>([
    [{ stack: "web-2" }, (entry) => entry.stack === "web-2"],
    [{ actor: "API Key: nightly" }, (entry) => entry.actor === "API Key: nightly"],
    [{ via: "session" }, (entry) => entry.via === "session"],
    [{ outcome: "failure" }, (entry) => !entry.success],
    [{ outcome: "success", stack: "api" }, (entry) => entry.success && entry.stack === "api"],
    [
      { stack: "web-1", actor: "Ada Admin", outcome: "failure" },
      (entry) => entry.stack === "web-1" && entry.actor === "Ada Admin" && !entry.success,
    ],
  ])("%j pages through exactly the matching actions", async (filters, matches) => {
    const walked = (await allPages({ ...filters, limit: "20" })).flatMap((page) => page.history);
    expect(walked.every(matches)).toBe(true);
    // Other tests' deploys may match too; the seeded actions must all be there, in order.
    expect(ids(walked.filter((entry) => entry.id.startsWith("seed-")))).toEqual(ids(seeded.filter(matches)));
  });

  it("finds nothing for a stack without actions, with a null cursor", async () => {
    expect((await get("?stack=docs")).json).toEqual({ history: [], nextCursor: null });
  });
});

describe("a key scoped to web-*", () => {
  it("sees only web-* whatever it filters by, and pages through all of it", async () => {
    const created = await world.app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie: world.cookie },
      json: { name: "web-reader", scope: { stacks: ["web-*"] } },
    });
    const headers = { "x-api-key": created.json.key };
    expect((await get("?stack=api", headers)).json).toEqual({ history: [], nextCursor: null });

    const seen: Entry[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const response = await get(`?outcome=failure&limit=9${cursor ? `&cursor=${cursor}` : ""}`, headers);
      expect(response.status, response.text).toBe(200);
      seen.push(...response.json.history);
      cursor = response.json.nextCursor;
    }
    expect(ids(seen.filter((entry) => entry.id.startsWith("seed-")))).toEqual(
      ids(seeded.filter((entry) => !entry.success && entry.stack.startsWith("web-"))),
    );
    expect(seen.every((entry) => entry.stack.startsWith("web-"))).toBe(true);
  });
});

describe("bad input", () => {
  const foreignCursor = Buffer.from("yesterday:web").toString("base64url");
  it.each([
    ["?cursor=not%20a%20cursor", /^cursor: /],
    [`?cursor=${foreignCursor}`, /^cursor: cursor is not one this API gave out/],
    ["?cursor=", /^cursor: /],
    ["?limit=0", /^limit: limit must be at least 1/],
    ["?limit=101", /^limit: limit must be at most 100/],
    ["?limit=1.5", /^limit: limit must be a whole number/],
    ["?limit=ten", /^limit: /],
    ["?outcome=maybe", /^outcome: outcome must be success or failure/],
    ["?via=robot", /^via: via must be session or apiKey/],
    ["?stack=a%2Fb", /^stack: /],
    [`?actor=${"x".repeat(201)}`, /^actor: actor must be at most 200 characters/],
    ["?stak=web", /stak/],
  ])("%s is a 400 naming the parameter", async (query, message) => {
    const response = await get(query);
    expect(response.status, response.text).toBe(400);
    expect(response.json).toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(message) });
  });
});

it("is described in the OpenAPI document: each query parameter and the next cursor", async () => {
  const operation = (await world.app.request("/doc")).json.paths["/api/v0/history"].get;
  const parameters = Object.fromEntries(
    operation.parameters.map((parameter: { name: string; in: string; schema: object }) => [
      parameter.name,
      { in: parameter.in, ...parameter.schema },
    ]),
  );
  expect(parameters).toMatchObject({
    stack: { in: "query", type: "string", pattern: expect.any(String) },
    actor: { in: "query", type: "string", maxLength: 200 },
    via: { in: "query", enum: ["session", "apiKey"] },
    outcome: { in: "query", enum: ["success", "failure"] },
    cursor: { in: "query", type: "string", description: expect.stringContaining("nextCursor") },
    limit: { in: "query", type: "integer", minimum: 1, maximum: 100 },
  });
  expect(operation.parameters.every((parameter: { required?: boolean }) => !parameter.required)).toBe(true);
  const page = operation.responses["200"].content["application/json"].schema;
  expect(page.properties.nextCursor).toMatchObject({ anyOf: expect.any(Array) });
  expect(page.required).toEqual(expect.arrayContaining(["history", "nextCursor"]));
  expect(operation.responses["400"].description).toMatch(/cursor/);
});
