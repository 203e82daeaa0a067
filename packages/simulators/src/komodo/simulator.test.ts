import type { Types } from "komodo_client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AUTO_REDEPLOY_OPERATOR } from "./actions.ts";
import { DEMO_DEPLOY_ERROR, demoStacks, generateStacks } from "./seeds.ts";
import { type KomodoSimulator, type KomodoSimulatorOptions, startKomodoSimulator } from "./simulator.ts";

const started: KomodoSimulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.close()));
});

async function start(options: KomodoSimulatorOptions = {}): Promise<KomodoSimulator> {
  const sim = await startKomodoSimulator(options);
  started.push(sim);
  return sim;
}

const credentials = (sim: KomodoSimulator) => ({ "x-api-key": sim.key, "x-api-secret": sim.secret });

/** A raw POST, so that these tests see exactly what goes over the wire. */
async function post(sim: KomodoSimulator, path: string, body: unknown = {}, headers = credentials(sim)) {
  const response = await fetch(`${sim.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get("content-type"), text };
}

async function call<T>(sim: KomodoSimulator, path: string, body: unknown = {}): Promise<T> {
  const { status, text } = await post(sim, path, body);
  if (status !== 200) throw new Error(`${path} answered ${status}: ${text}`);
  return JSON.parse(text) as T;
}

const listStacks = (sim: KomodoSimulator, params: Types.ListStacks = {}) =>
  call<Types.StackListItem[]>(sim, "/read/ListStacks", params);
const execute = (sim: KomodoSimulator, type: string, stack: string) =>
  call<Types.Update>(sim, `/execute/${type}`, { stack });
const getUpdate = (sim: KomodoSimulator, update: Types.Update) =>
  call<Types.Update>(sim, "/read/GetUpdate", { id: update._id!.$oid });

describe("Komodo simulator: wire protocol", () => {
  it("answers GET /version without credentials, as plain text", async () => {
    const sim = await start();
    const response = await fetch(`${sim.url}/version`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("2.3.2");
  });

  it("accepts the type in the path and the {type, params} envelope", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    expect(await call(sim, "/read/GetVersion")).toEqual({ version: "2.3.2" });
    expect(await call(sim, "/read", { type: "GetVersion", params: {} })).toEqual({ version: "2.3.2" });
    const viaPath = await call<Types.Stack>(sim, "/read/GetStack", { stack: "web" });
    const viaEnvelope = await call<Types.Stack>(sim, "/read", { type: "GetStack", params: { stack: "web" } });
    expect(viaEnvelope).toEqual(viaPath);
    const update = await call<Types.Update>(sim, "/execute", { type: "PullStack", params: { stack: "web" } });
    expect(update.operation).toBe("PullStack");
  });

  it("refuses missing, incomplete and wrong credentials like Komodo", async () => {
    const sim = await start();
    const none = await post(sim, "/read/GetVersion", {}, {} as ReturnType<typeof credentials>);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text)).toEqual({ error: "Invalid client credentials", trace: [] });

    const wrong = await post(
      sim,
      "/read/GetVersion",
      {},
      { "x-api-key": sim.key, "x-api-secret": "S_wrong_S" },
    );
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text)).toEqual({ error: "Invalid user credentials", trace: [] });

    const keyOnly = await post(sim, "/read/GetVersion", {}, { "x-api-key": sim.key } as ReturnType<
      typeof credentials
    >);
    expect(keyOnly.status).toBe(500);
    expect(JSON.parse(keyOnly.text).error).toBe("Request headers have X-API-KEY but missing X-API-SECRET");

    const padded = await post(
      sim,
      "/read/GetVersion",
      {},
      { "x-api-key": ` ${sim.key} `, "x-api-secret": `${sim.secret} ` },
    );
    expect(padded.status).toBe(200);
  });

  it("answers errors as {error, trace} with Komodo's status codes", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    const unknownStack = await post(sim, "/execute/DeployStack", { stack: "nope" });
    expect(unknownStack.status).toBe(500);
    expect(unknownStack.contentType).toBe("application/json");
    expect(JSON.parse(unknownStack.text)).toEqual({
      error: "Did not find any Stack matching nope",
      trace: [],
    });

    const unknownType = await post(sim, "/read/GetNothing");
    expect(unknownType.status).toBe(500);
    expect(JSON.parse(unknownType.text).error).toMatch(/^unknown variant `GetNothing`/);
    const unknownEnvelope = await post(sim, "/execute", { type: "LaunchRocket", params: {} });
    expect(unknownEnvelope.status).toBe(500);

    const missingField = await post(sim, "/read/GetStack", {});
    expect(JSON.parse(missingField.text).error).toBe("missing field `stack`");

    const notJson = await fetch(`${sim.url}/read/GetVersion`, {
      method: "POST",
      headers: { ...credentials(sim), "content-type": "application/json" },
      body: "{oops",
    });
    expect(notJson.status).toBe(400);
    const noContentType = await fetch(`${sim.url}/read/GetVersion`, {
      method: "POST",
      headers: credentials(sim),
      body: "{}",
    });
    expect(noContentType.status).toBe(415);
  });
});

describe("Komodo simulator: stacks", () => {
  it("pages ListStacks like Komodo 2.3: 50 without limit, everything for limit 0, no next_page", async () => {
    const sim = await start({ stacks: 120 });
    const firstPage = await listStacks(sim);
    expect(firstPage).toHaveLength(50);
    expect(await listStacks(sim, { page: 2 })).toHaveLength(20);
    const everything = await listStacks(sim, { limit: 0 });
    expect(everything).toHaveLength(120);
    expect(everything.slice(0, 50)).toEqual(firstPage);
    expect(await listStacks(sim, { limit: 30, page: 3 })).toEqual(everything.slice(90, 120));
    const names = everything.map((stack) => stack.name);
    expect(names).toEqual([...names].sort());
  });

  it("can play older and capped servers", async () => {
    const unpaged = await start({ stacks: 60, stackPaging: "unpaged" });
    expect(await listStacks(unpaged, { limit: 10, page: 3 })).toHaveLength(60);
    const capped = await start({ stacks: 60, stackPaging: "capped" });
    expect(await listStacks(capped, { limit: 0 })).toHaveLength(50);
    expect(await listStacks(capped, { limit: 20, page: 2 })).toHaveLength(20);
  });

  it("filters ListStacks by names and states", async () => {
    const sim = await start({ stacks: [{ name: "a" }, { name: "b", state: "down" }, { name: "c" }] });
    expect((await listStacks(sim, { query: { names: ["c"] } })).map((stack) => stack.name)).toEqual(["c"]);
    const down = await listStacks(sim, { query: { specific: { states: ["down" as Types.StackState] } } });
    expect(down.map((stack) => stack.name)).toEqual(["b"]);
  });

  it("generates distinct, plausible stacks, the same on every run", async () => {
    const seeds = generateStacks(60);
    expect(new Set(seeds.map((seed) => seed.name)).size).toBe(60);
    for (const seed of seeds) {
      expect(seed.services!.length).toBeGreaterThanOrEqual(1);
      expect(seed.services!.length).toBeLessThanOrEqual(3);
      for (const { image } of seed.services!) expect(image).toMatch(/^[a-z0-9./-]+:[\w.-]+$/);
    }
    const [one, two] = await Promise.all([start({ stacks: 5 }), start({ stacks: 5 })]);
    expect(await listStacks(one)).toEqual(await listStacks(two));
    for (const stack of await listStacks(one)) expect(stack.id).toMatch(/^[0-9a-f]{24}$/);
  });

  it("ships a demo set across states, with updates, a failing deploy, an unstable one and a private image", () => {
    const demo = demoStacks();
    expect(demo.length).toBeGreaterThanOrEqual(18);
    const states = new Set(demo.map((seed) => seed.state ?? "running"));
    for (const state of ["running", "down", "stopped", "unhealthy", "restarting"])
      expect(states).toContain(state);
    expect(demo.some((seed) => seed.services?.some((service) => service.updateAvailable))).toBe(true);
    expect(demo.filter((seed) => seed.faults?.failWith)).toHaveLength(1);
    expect(demo.filter((seed) => seed.faults?.afterDeploy === "crash-loop").map((seed) => seed.name)).toEqual(
      ["loki"],
    );
    expect(
      demo.flatMap((seed) => seed.services ?? []).some((service) => service.image.includes("private")),
    ).toBe(true);
  });

  it("GetStack finds a stack by id or by name", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    const { id } = sim.inspectStack("web")!;
    const byId = await call<Types.Stack>(sim, "/read/GetStack", { stack: id });
    expect(byId._id).toEqual({ $oid: id });
    expect(byId.name).toBe("web");
  });

  it("shows image changes made through the handle", async () => {
    const sim = await start({
      stacks: [{ name: "web", services: [{ service: "app", image: "ghcr.io/acme/web:1.0" }] }],
    });
    sim.setService("web", "app", { image: "ghcr.io/acme/web:1.1", updateAvailable: true });
    const [web] = await listStacks(sim);
    expect(web.info.services).toEqual([
      { service: "app", image: "ghcr.io/acme/web:1.1", update_available: true },
    ]);
  });

  it("UpdateStack changes only the fields sent and returns the Stack", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    const stack = await call<Types.Stack>(sim, "/write/UpdateStack", {
      id: "web",
      config: { poll_for_updates: true },
    });
    expect(stack.config?.poll_for_updates).toBe(true);
    expect(stack.config?.auto_pull).toBe(true);
  });

  it("DeleteStack takes a running stack down first and returns it", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    const deleted = await call<Types.Stack>(sim, "/write/DeleteStack", { id: "web" });
    expect(deleted.name).toBe("web");
    expect((await post(sim, "/read/GetStack", { stack: "web" })).status).toBe(500);
    const { updates } = await call<Types.ListUpdatesResponse>(sim, "/read/ListUpdates");
    const update = await call<Types.Update>(sim, "/read/GetUpdate", { id: updates[0].id });
    expect(update.operation).toBe("DeleteStack");
    expect(update.logs.map((log) => log.stage)).toEqual(["Destroy Stack", "Delete Stack"]);
  });
});

describe("Komodo simulator: actions and Updates", () => {
  it("returns an in-progress Update at once and completes it later, even with no delay", async () => {
    const sim = await start({ stacks: [{ name: "web", state: "down" }] });
    const update = await execute(sim, "DeployStack", "web");
    expect(update).toMatchObject({ status: "InProgress", success: true, operation: "DeployStack", logs: [] });
    expect(update._id!.$oid).toMatch(/^[0-9a-f]{24}$/);
    expect(update.target).toEqual({ type: "Stack", id: sim.inspectStack("web")!.id });
    await sim.settle();
    const done = await getUpdate(sim, update);
    expect(done).toMatchObject({ status: "Complete", success: true });
    expect(done.end_ts).toBeGreaterThanOrEqual(done.start_ts);
    expect(done.logs.map((log) => log.stage)).toEqual(["Compose Pull", "Compose Up"]);
  });

  it("moves stacks between states: deploying, running, down", async () => {
    const sim = await start({
      stacks: [
        {
          name: "web",
          services: [
            { service: "a", image: "a:1" },
            { service: "b", image: "b:1" },
          ],
        },
      ],
      // Long enough that the state in between is seen even on a busy machine.
      faults: { updateDelayMs: 300 },
    });
    await execute(sim, "DestroyStack", "web");
    await sim.settle();
    let [web] = await listStacks(sim);
    expect(web.info.state).toBe("down");
    expect(web.info.status).toBeNull();

    await execute(sim, "DeployStack", "web");
    [web] = await listStacks(sim);
    expect(web.info.state).toBe("deploying");
    await sim.settle();
    [web] = await listStacks(sim);
    expect(web.info.state).toBe("running");
    expect(web.info.status).toBe("running(2)");
  });

  it("records actions on some services as <Op>Service", async () => {
    const sim = await start({
      stacks: [
        {
          name: "web",
          services: [
            { service: "app", image: "app:1" },
            { service: "db", image: "db:1" },
          ],
        },
      ],
    });
    const update = await call<Types.Update>(sim, "/execute/DeployStack", { stack: "web", services: ["app"] });
    expect(update.operation).toBe("DeployStackService");
    await sim.settle();
    expect((await getUpdate(sim, update)).logs[0].stdout).toBe("Execution requested for Stack service/s app");
    expect(sim.recordExternalDeploy("web", { services: ["db"] }).operation).toBe("DeployStackService");
  });

  it("a pull keeps the state and clears update_available", async () => {
    const sim = await start({
      stacks: [
        {
          name: "web",
          state: "stopped",
          services: [{ service: "app", image: "app:1", updateAvailable: true }],
        },
      ],
    });
    await execute(sim, "PullStack", "web");
    await sim.settle();
    const [web] = await listStacks(sim);
    expect(web.info.state).toBe("stopped");
    expect(web.info.services[0].update_available).toBe(false);
  });

  it("a second action on a busy stack replies 200, then fails with a Task Error", async () => {
    const sim = await start({ stacks: [{ name: "web" }], faults: { updateDelayMs: 300 } });
    const first = await execute(sim, "DeployStack", "web");
    const second = await execute(sim, "PullStack", "web");
    expect(second.status).toBe("InProgress");
    await sim.settle();
    expect((await getUpdate(sim, first)).success).toBe(true);
    const refused = await getUpdate(sim, second);
    expect(refused.success).toBe(false);
    expect(refused.logs).toHaveLength(1);
    expect(refused.logs[0]).toMatchObject({ stage: "Task Error", success: false });
    expect(refused.logs[0].stderr).toContain("Resource is busy");
  });

  it("plays busy, forbidden and failing stacks, changeable at runtime", async () => {
    const sim = await start({
      stacks: [{ name: "web" }, { name: "docs", faults: { failWith: DEMO_DEPLOY_ERROR } }],
    });
    sim.faults.setStack("web", { forbidden: true });
    const forbidden = await execute(sim, "DeployStack", "web");
    sim.faults.setStack("web", { forbidden: undefined, busy: true });
    const busy = await execute(sim, "DeployStack", "web");
    const failedDeploy = await execute(sim, "DeployStack", "docs");
    // The deploy must finish first, or the pull meets a busy stack.
    await sim.settle();
    const failedPull = await execute(sim, "PullStack", "docs");
    await sim.settle();

    const forbiddenDone = await getUpdate(sim, forbidden);
    expect(forbiddenDone.success).toBe(false);
    expect(forbiddenDone.logs.at(-1)!.stderr).toMatch(/Must have at least Execute permissions/);
    expect((await getUpdate(sim, busy)).logs.at(-1)!.stderr).toContain("Resource is busy");
    expect((await post(sim, "/write/UpdateStack", { id: "web", config: {} })).status).toBe(500);

    const deployDone = await getUpdate(sim, failedDeploy);
    expect(deployDone.success).toBe(false);
    expect(deployDone.logs.at(-1)).toMatchObject({
      stage: "Compose Up",
      success: false,
      stderr: DEMO_DEPLOY_ERROR,
    });
    expect((await getUpdate(sim, failedPull)).logs.at(-1)).toMatchObject({
      stage: "Compose Pull",
      success: false,
    });
    expect(sim.inspectStack("docs")!.info.state).toBe("running");

    await sim.faults.reset();
    expect(sim.faults.stack("web")).toEqual({});
    expect(sim.faults.stack("docs")).toEqual({ failWith: DEMO_DEPLOY_ERROR });
  });

  it("completes slow stacks later than others", async () => {
    const sim = await start({
      stacks: [{ name: "slow", faults: { updateDelayMs: 5_000 } }, { name: "quick" }],
    });
    const slow = await execute(sim, "PullStack", "slow");
    const quick = await execute(sim, "PullStack", "quick");
    await vi.waitFor(async () => expect((await getUpdate(sim, quick)).status).toBe("Complete"));
    expect((await getUpdate(sim, slow)).status).toBe("InProgress");
  });

  it("lists Updates newest first, 100 a page, with next_page", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    for (let index = 0; index < 130; index++) sim.recordExternalDeploy("web", { at: 1_000 + index });
    const first = await call<Types.ListUpdatesResponse>(sim, "/read/ListUpdates", {});
    expect(first.updates).toHaveLength(100);
    expect(first.next_page).toBe(1);
    expect(first.updates[0].start_ts).toBe(1_129);
    expect(typeof first.updates[0].id).toBe("string");
    const second = await call<Types.ListUpdatesResponse>(sim, "/read/ListUpdates", { page: 1 });
    expect(second.updates).toHaveLength(30);
    expect(second.next_page).toBeNull();
  });

  it("filters Updates by target, operation and start time, and shows deploys made elsewhere", async () => {
    const sim = await start({ stacks: [{ name: "web" }, { name: "db" }] });
    const webId = sim.inspectStack("web")!.id;
    await execute(sim, "PullStack", "web");
    await execute(sim, "DeployStack", "db");
    await sim.settle();
    const since = Date.now();
    sim.setService("web", "web", { image: "web:2" });
    sim.recordExternalDeploy("web", { at: since + 5 });

    const { updates } = await call<Types.ListUpdatesResponse>(sim, "/read/ListUpdates", {
      query: {
        "target.type": "Stack",
        "target.id": webId,
        operation: { $in: ["DeployStack", "DeployStackService"] },
        start_ts: { $gte: since },
      },
    });
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({
      operation: "DeployStack",
      operator: AUTO_REDEPLOY_OPERATOR,
      username: AUTO_REDEPLOY_OPERATOR,
      status: "Complete",
      success: true,
      target: { type: "Stack", id: webId },
    });
    const unsupported = await post(sim, "/read/ListUpdates", { query: { "logs.stage": "x" } });
    expect(unsupported.status).toBe(500);
  });

  it("records every call in order and can forget them", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    await call(sim, "/read/GetVersion");
    await call(sim, "/execute", { type: "DeployStack", params: { stack: "web" } });
    expect(sim.calls.map(({ api, type, params }) => ({ api, type, params }))).toEqual([
      { api: "read", type: "GetVersion", params: {} },
      { api: "execute", type: "DeployStack", params: { stack: "web" } },
    ]);
    sim.clearCalls();
    expect(sim.calls).toEqual([]);
  });
});

describe("Komodo simulator: what runs (2.x)", () => {
  const services = (sim: KomodoSimulator, stack: string) =>
    call<Types.StackService[]>(sim, "/read/ListStackServices", { stack });
  const updateOf = (sim: KomodoSimulator, id: string) => call<Types.Update>(sim, "/read/GetUpdate", { id });

  it("lists each service's container and the running image's repo digest, which a pull alone does not change", async () => {
    const sim = await start({
      stacks: [
        { name: "web", services: [{ service: "app", image: "ghcr.io/acme/app:1", updateAvailable: true }] },
      ],
    });
    const [before] = await services(sim, "web");
    expect(before).toMatchObject({
      service: "app",
      image: "ghcr.io/acme/app:1",
      state: "Running",
      container: { name: "web-app-1", state: "running", status: expect.stringMatching(/^Up \d+ seconds?$/) },
    });
    expect(before!.image_digests).toEqual([
      expect.stringMatching(/^ghcr\.io\/acme\/app@sha256:[0-9a-f]{64}$/),
    ]);

    const pull = await execute(sim, "PullStack", "web");
    await sim.settle();
    expect((await services(sim, "web"))[0]!.image_digests).toEqual(before!.image_digests);
    const pulled = await updateOf(sim, pull._id!.$oid);
    expect(pulled.logs.map((log) => log.stage)).toEqual(["Compose Pull"]);
    expect(pulled.logs[0]!.stderr).toContain("Downloaded newer image for ghcr.io/acme/app:1");
    expect(pulled.logs[0]!.command).toMatch(/docker compose -p web .* pull$/);

    await execute(sim, "DeployStack", "web");
    await sim.settle();
    const [after] = await services(sim, "web");
    expect(after!.image_digests).not.toEqual(before!.image_digests);
    expect(after!.container!.created).toBeGreaterThanOrEqual(before!.container!.created!);
  });

  it("a redeploy of the same images keeps the digests; a stack that is down has no container", async () => {
    const sim = await start({ stacks: [{ name: "web" }, { name: "off", state: "down" }] });
    const [before] = await services(sim, "web");
    await execute(sim, "DeployStack", "web");
    await sim.settle();
    expect((await services(sim, "web"))[0]!.image_digests).toEqual(before!.image_digests);
    const [off] = await services(sim, "off");
    expect(off).toMatchObject({ state: "Unknown" });
    expect(off!.container).toBeUndefined();
  });

  it("deploys a repository stack's new head, with Komodo's git stages", async () => {
    const sim = await start({
      stacks: [{ name: "site", repository: { deployed: { hash: "a1b2c3d", message: "old" } } }],
    });
    sim.pushCommit("site", { hash: "e4f5a6b", message: "Add the pricing page" });
    const stackOf = () => call<Types.Stack>(sim, "/read/GetStack", { stack: "site" });
    expect((await stackOf()).info).toMatchObject({ deployed_hash: "a1b2c3d", latest_hash: "e4f5a6b" });
    const deploy = await execute(sim, "DeployStack", "site");
    await sim.settle();
    expect((await stackOf()).info).toMatchObject({
      deployed_hash: "e4f5a6b",
      deployed_message: "Add the pricing page",
    });
    const stages = (await updateOf(sim, deploy._id!.$oid)).logs.map((log) => log.stage);
    expect(stages).toEqual(["Git pull", "Latest Commit", "Compose Pull", "Compose Up"]);
  });

  it("plays a service that restarts in a loop after a deploy, as docker and Komodo show it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const sim = await start({ stacks: [{ name: "worker", faults: { afterDeploy: "crash-loop" } }] });
      await execute(sim, "DeployStack", "worker");
      await sim.settle();
      expect((await services(sim, "worker"))[0]!.container!.state).toBe("running");
      vi.setSystemTime(Date.now() + 7_000);
      const [looping] = await services(sim, "worker");
      expect(looping!.container).toMatchObject({
        state: "restarting",
        status: expect.stringMatching(/^Restarting \(1\)/),
      });
      const inspected = await call<Types.Container>(sim, "/read/InspectStackContainer", {
        stack: "worker",
        service: "worker",
      });
      expect(inspected).toMatchObject({
        RestartCount: 3,
        State: { Status: "restarting", Restarting: true, ExitCode: 1 },
      });
      expect((await listStacks(sim))[0]!.info.state).toBe("restarting");
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("Komodo simulator: server faults", () => {
  it("answers garbage: 200 with a body that is not JSON", async () => {
    const sim = await start({ faults: { garbage: true } });
    const response = await post(sim, "/read/GetVersion");
    expect(response.status).toBe(200);
    expect(() => JSON.parse(response.text)).toThrow();
  });

  it("plays hostile answers to one request type: wrong shapes and bodies of any size", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    await sim.faults.set({
      hostileAnswers: {
        ListStacks: { json: [{ x: 1 }] },
        GetStack: { json: { error: "nope" }, status: 500 },
        GetVersion: { streamBytes: 3 * 1024 * 1024 + 5 },
      },
    });
    expect(JSON.parse((await post(sim, "/read/ListStacks")).text)).toEqual([{ x: 1 }]);
    expect(await post(sim, "/read/GetStack", { stack: "web" })).toMatchObject({ status: 500 });
    const streamed = await post(sim, "/read/GetVersion");
    expect(streamed.text).toHaveLength(3 * 1024 * 1024 + 5);
    expect(streamed.text.startsWith('[{"x":1},')).toBe(true);
    expect(sim.calls.map((call) => call.type)).toEqual(["ListStacks", "GetStack", "GetVersion"]);

    await sim.faults.set({ hostileAnswers: { GetVersion: { streamBytes: 2048, declareLength: true } } });
    const declared = await fetch(`${sim.url}/read/GetVersion`, { method: "POST", headers: credentials(sim) });
    expect(declared.headers.get("content-length")).toBe("2048");
    expect((await declared.arrayBuffer()).byteLength).toBe(2048);
  });

  it("streams a body without end until the client goes away", async () => {
    const sim = await start();
    await sim.faults.set({ hostileAnswers: { GetVersion: { streamForever: true } } });
    const controller = new AbortController();
    const response = await fetch(`${sim.url}/read/GetVersion`, {
      method: "POST",
      headers: credentials(sim),
      signal: controller.signal,
    });
    let received = 0;
    for await (const chunk of response.body!) {
      received += chunk.length;
      if (received > 20 * 1024 * 1024) break;
    }
    controller.abort();
    expect(received).toBeGreaterThan(20 * 1024 * 1024);
    await sim.faults.reset();
    expect((await post(sim, "/read/GetVersion")).status).toBe(200);
  });

  it("refuses even correct credentials when told to", async () => {
    const sim = await start();
    await sim.faults.set({ badCredentials: true });
    expect((await post(sim, "/read/GetVersion")).status).toBe(401);
  });

  it("goes down (connections refused, open ones cut) and comes back on the same port", async () => {
    const sim = await start({ faults: { latencyMs: 5_000 } });
    const inFlight = post(sim, "/read/GetVersion").then(
      () => "answered",
      () => "failed",
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    const began = Date.now();
    await sim.faults.set({ down: true, latencyMs: undefined });
    expect(await inFlight).toBe("failed");
    await expect(post(sim, "/read/GetVersion")).rejects.toThrow();
    expect(Date.now() - began).toBeLessThan(1_000);

    await sim.faults.set({ down: false });
    expect((await post(sim, "/read/GetVersion")).status).toBe(200);
  });

  it("adds latency", async () => {
    const sim = await start({ faults: { latencyMs: 80 } });
    const began = Date.now();
    await post(sim, "/read/GetVersion");
    expect(Date.now() - began).toBeGreaterThanOrEqual(75);
  });
});
