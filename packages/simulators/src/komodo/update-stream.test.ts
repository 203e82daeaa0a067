import { request } from "node:http";
import type { Types } from "komodo_client";
import { afterEach, describe, expect, it } from "vitest";
import { AUTO_REDEPLOY_OPERATOR } from "./actions.ts";
import { type KomodoSimulator, type KomodoSimulatorOptions, startKomodoSimulator } from "./simulator.ts";

const started: KomodoSimulator[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  await Promise.all(started.splice(0).map((sim) => sim.close()));
});

async function start(options: KomodoSimulatorOptions = {}): Promise<KomodoSimulator> {
  const sim = await startKomodoSimulator(options);
  started.push(sim);
  return sim;
}

/** A socket to `/ws/update` whose text messages queue up for `next()`, with its close as `closed`. */
function connect(sim: KomodoSimulator) {
  const socket = new WebSocket(`${sim.url.replace("http", "ws")}/ws/update`);
  sockets.push(socket);
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  socket.addEventListener("message", ({ data }) => {
    queue.push(String(data));
    wake?.();
  });
  const opened = new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error("the upgrade failed")), { once: true });
  });
  const closed = new Promise<number>((resolve) =>
    socket.addEventListener("close", ({ code }) => resolve(code), { once: true }),
  );
  async function next(): Promise<string> {
    while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return queue.shift()!;
  }
  return {
    socket,
    opened,
    closed,
    next,
    nextItem: async () => JSON.parse(await next()) as Types.UpdateListItem,
  };
}

async function logIn(sim: KomodoSimulator, key = sim.key, secret = sim.secret) {
  const client = connect(sim);
  await client.opened;
  client.socket.send(JSON.stringify({ type: "ApiKeys", params: { key, secret } }));
  return client;
}

async function execute(sim: KomodoSimulator, type: string, stack: string): Promise<Types.Update> {
  const response = await fetch(`${sim.url}/execute/${type}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": sim.key, "x-api-secret": sim.secret },
    body: JSON.stringify({ stack }),
  });
  return (await response.json()) as Types.Update;
}

describe("Komodo simulator: /ws/update", () => {
  it("logs in with API keys, then sends one UpdateListItem per change of an Update", async () => {
    const sim = await start({ stacks: [{ name: "web" }], faults: { updateDelayMs: 0 } });
    const client = await logIn(sim);
    expect(await client.next()).toBe("LOGGED_IN");

    const update = await execute(sim, "PullStack", "web");
    const id = update._id!.$oid;
    const stackId = sim.inspectStack("web")!.id;
    const first = await client.nextItem();
    expect(first).toEqual({
      id,
      operation: "PullStack",
      start_ts: update.start_ts,
      success: true,
      username: "stackgate",
      operator: update.operator,
      target: { type: "Stack", id: stackId },
      status: "InProgress",
    });
    expect(await client.nextItem()).toMatchObject({ id, status: "Complete", success: true });
  });

  it("answers bad keys and unparsable logins with Komodo's texts, then closes", async () => {
    const sim = await start();
    const wrong = await logIn(sim, sim.key, "S_wrong_S");
    expect(await wrong.next()).toBe("failed to authenticate user using api keys | Invalid user credentials");
    await wrong.closed;

    const garbled = connect(sim);
    await garbled.opened;
    garbled.socket.send("hello");
    expect(await garbled.next()).toMatch(/^failed to parse login message: /);
    await garbled.closed;
    expect(sim.updateStream.loggedIn).toBe(0);
  });

  it("sends only Updates of stacks the user may read, and ends a revoked user's socket with INVALID_USER", async () => {
    const sim = await start({ stacks: [{ name: "web" }, { name: "secret", faults: { unreadable: true } }] });
    const client = await logIn(sim);
    await client.next();
    sim.recordExternalDeploy("secret");
    sim.recordExternalDeploy("web", { operator: AUTO_REDEPLOY_OPERATOR });
    const item = await client.nextItem();
    expect(item).toMatchObject({ operation: "DeployStack", operator: AUTO_REDEPLOY_OPERATOR });
    expect(item.target.id).toBe(sim.inspectStack("web")!.id);
    expect(await client.nextItem()).toMatchObject({ id: item.id, status: "Complete" });

    await sim.faults.set({ badCredentials: true });
    sim.recordExternalDeploy("web");
    expect(JSON.parse(await client.next())).toMatchObject({ type: "INVALID_USER" });
    await client.closed;
  });

  it("refuses the upgrade in the refusing mode, and drops open sockets on demand", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    const client = await logIn(sim);
    await client.next();
    await sim.updateStream.whenLoggedIn();
    sim.updateStream.drop();
    expect(await client.closed).toBe(1006);

    await sim.faults.set({ refuseUpdateStream: true });
    await expect(connect(sim).opened).rejects.toThrow(/upgrade failed/);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const upgrade = request(`${sim.url}/ws/update`, {
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        },
      });
      upgrade.on("response", (response) => resolve(response.statusCode));
      upgrade.on("error", reject);
      upgrade.end();
    });
    expect(status).toBe(426);
  });

  it("holds a stack's Updates until released, and runs outside deploys over time", async () => {
    const sim = await start({ stacks: [{ name: "web", faults: { holdUpdates: true } }, { name: "api" }] });
    const client = await logIn(sim);
    await client.next();
    const update = await execute(sim, "DeployStack", "web");
    await sim.whenHeld("web");
    expect(await client.nextItem()).toMatchObject({ id: update._id!.$oid, status: "InProgress" });
    sim.releaseUpdates("web");
    expect(await client.nextItem()).toMatchObject({ id: update._id!.$oid, status: "Complete" });

    const outside = sim.startExternalDeploy("api", { durationMs: 1 });
    expect(outside.status).toBe("InProgress");
    expect(await client.nextItem()).toMatchObject({ id: outside._id!.$oid, status: "InProgress" });
    expect(await client.nextItem()).toMatchObject({ id: outside._id!.$oid, status: "Complete" });
  });
});
