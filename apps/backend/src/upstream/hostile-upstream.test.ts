import { hostileText, type NtfyReceiver, startNtfyReceiver } from "@stackgate/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startConnectedBackend } from "../testing/harness.ts";

// The real backend against a Komodo simulator that plays a hostile or broken server on the wire.

let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let ntfy: NtfyReceiver;
const MiB = 1024 * 1024;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

beforeAll(async () => {
  ntfy = await startNtfyReceiver();
  world = await startConnectedBackend({
    komodo: {
      stacks: [
        { name: "web" },
        { name: "hostile", faults: { failWith: hostileText(100_000) } },
        {
          name: "\u001b[31mred\u001b[0m\u202ename",
          services: [{ service: "app\u0007\nx", image: `ghcr.io/acme/${hostileText(5_000)}` }],
        },
      ],
    },
  });
  const saved = await world.app.request("/api/v0/deploy/credentials/notify", {
    method: "POST",
    headers: { cookie: world.cookie },
    json: { url: ntfy.url, topic: "deploys", enabled: true },
  });
  expect(saved.status).toBe(200);
});
afterAll(async () => {
  await world.close();
  await ntfy.close();
});
beforeEach(() => world.komodo.faults.reset());

const get = (path: string) => world.app.request(path, { headers: { cookie: world.cookie } });
const deploy = (stack: string) =>
  world.app.request("/api/v0/deploy", {
    method: "POST",
    headers: { cookie: world.cookie },
    json: { stack, action: "redeploy" },
  });

describe("an upstream answer that is too large", () => {
  it.each([
    ["600 MiB streamed without a length", { streamBytes: 600 * MiB }],
    ["600 MiB announced by its Content-Length", { streamBytes: 600 * MiB, declareLength: true }],
    ["a body without end", { streamForever: true as const }],
  ])("is a 502 for %s, and the backend keeps serving", async (_, answer) => {
    await world.komodo.faults.set({ hostileAnswers: { ListStacks: answer } });
    for (const path of ["/api/v0/stacks", "/api/v0/security/images"]) {
      const refused = await get(path);
      expect(refused.status).toBe(502);
      expect(refused.json.message).toBe(
        `Komodo at ${world.komodo.url} answered with more than 8 MiB to ListStacks, the most Stackgate reads`,
      );
    }
    await world.komodo.faults.reset();
    const listed = await get("/api/v0/stacks");
    expect(listed.status).toBe(200);
    expect(listed.json.stacks).toHaveLength(3);
  });
});

describe("an upstream answer of the wrong shape", () => {
  it("is a 502 naming what was wrong, on the stacks and on the images", async () => {
    await world.komodo.faults.set({ hostileAnswers: { ListStacks: { json: [{ x: 1 }] } } });
    for (const path of ["/api/v0/stacks", "/api/v0/security/images"]) {
      const refused = await get(path);
      expect(refused.status).toBe(502);
      expect(refused.json.message).toBe(
        `Komodo at ${world.komodo.url} answered with an unexpected shape to ListStacks: ` +
          "[0].id: Invalid input: expected string, received undefined; " +
          "[0].name: Invalid input: expected string, received undefined; " +
          "[0].info: Invalid input: expected object, received undefined",
      );
    }
    await world.komodo.faults.set({ hostileAnswers: { ListStacks: { json: { stacks: [] } } } });
    expect((await get("/api/v0/stacks")).json.message).toMatch(
      /unexpected shape to ListStacks: the answer: expected a list, received an object$/,
    );
  });

  it("is a 502 for a deploy whose execute answer is not an Update, recorded in the history", async () => {
    await world.komodo.faults.set({ hostileAnswers: { DeployStack: { json: { ok: true } } } });
    const refused = await deploy("web");
    expect(refused.status).toBe(502);
    expect(refused.json.message).toMatch(
      /unexpected shape to DeployStack: operation: Invalid input: expected string, received undefined/,
    );
    const { history } = (await get("/api/v0/history")).json;
    expect(history[0]).toMatchObject({ stack: "web", success: false, message: refused.json.message });
  });

  it("says so when a connection is saved to a server whose version is not a text", async () => {
    await world.komodo.faults.set({ hostileAnswers: { GetVersion: { json: { version: 7 } } } });
    const saved = await world.app.connectKomodo(world.cookie, world.komodo);
    expect(saved).toMatchObject({ reachable: false });
    expect(saved.error).toMatch(/unexpected shape to GetVersion: version: Invalid input: expected string/);
  });
});

describe("upstream text", () => {
  it("reaches the answer, the history and the alert clean and at most 2,000 characters long", async () => {
    const refused = await deploy("hostile");
    expect(refused.status).toBe(502);
    const message: string = refused.json.message;
    // Its start (what failed) and its end (where compose prints its error), the middle cut.
    expect(message).toMatch(/^DeployStack failed: ERROR {2}deploy of gnp\.exe failed: A+…A+$/);
    expect(message).not.toMatch(UNSAFE);
    expect(message.length).toBeLessThanOrEqual(2_050);

    const { history } = (await get("/api/v0/history")).json;
    expect(history[0]).toMatchObject({ stack: "hostile", message });
    const alertOf = () => ntfy.published.find((alert) => alert.title?.includes("hostile"));
    await expect.poll(alertOf).toBeDefined();
    expect(alertOf()!.message).toContain("deploy of gnp.exe failed: AAAA");
    expect(alertOf()!.message).not.toMatch(UNSAFE);
  });

  it("of a Komodo error answer is cleaned too", async () => {
    const error = { error: hostileText(100_000), trace: [hostileText(10)] };
    await world.komodo.faults.set({ hostileAnswers: { DeployStack: { json: error, status: 500 } } });
    const refused = await deploy("web");
    expect(refused.status).toBe(502);
    expect(refused.json.message).toMatch(/^ERROR {2}deploy of gnp\.exe failed: A+…$/);
    expect(refused.json.message).toHaveLength(2_000);
  });

  it("of stack names, services and images is shown clean and cut", async () => {
    const { stacks } = (await get("/api/v0/stacks")).json;
    const red = stacks.find((stack: { name: string }) => stack.name.startsWith("red"));
    expect(red.name).toBe("redname");
    const [service] = red.info.services;
    expect(service.service).toBe("app x");
    expect(service.image).toMatch(/^ghcr\.io\/acme\/ERROR {2}deploy of gnp\.exe failed: A+…$/);
    expect(service.image).toHaveLength(2_000);
    expect(red.images).toEqual([service.image]);
    expect(JSON.stringify(stacks)).not.toMatch(UNSAFE);
  });
});
