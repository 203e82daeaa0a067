import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { once } from "node:events";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { inspect } from "node:util";
import {
  DEMO_DEPLOY_ERROR,
  type KomodoSimulator,
  type KomodoSimulatorOptions,
  startKomodoSimulator,
  UNREACHABLE_URL,
} from "@stackgate/simulators";
import { afterEach, describe, expect, it } from "vitest";
import { deadlineIn } from "../platform/deadline.ts";
import { createKomodoClient, failedUpdateReason, UpstreamError } from "./komodo-client.ts";

const started: KomodoSimulator[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A plain HTTP server playing Komodo badly, and its URL. */
async function serve(handler: RequestListener) {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function start(options: KomodoSimulatorOptions = {}): Promise<KomodoSimulator> {
  const sim = await startKomodoSimulator(options);
  started.push(sim);
  return sim;
}

const clientFor = (sim: KomodoSimulator, options?: { timeoutMs?: number }) =>
  createKomodoClient({ url: sim.url, key: sim.key, secret: sim.secret }, options);

const inOneMinute = () => deadlineIn(60_000);

/** The rejection of `promise`, which must reject with an UpstreamError. */
async function upstreamFailure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe("Komodo client: reading", () => {
  it("reads the version", async () => {
    const sim = await start();
    expect(await clientFor(sim).getVersion()).toBe("2.3.2");
  });

  it("lists every stack in one request with limit 0", async () => {
    const sim = await start({ stacks: 120 });
    const stacks = await clientFor(sim).listAllStacks();
    expect(stacks).toHaveLength(120);
    expect(new Set(stacks.map((stack) => stack.id)).size).toBe(120);
    expect(sim.calls.map((call) => call.params)).toEqual([{ limit: 0 }]);
  });

  it("lists everything from an old server that ignores paging", async () => {
    const sim = await start({ stacks: 70, stackPaging: "unpaged" });
    expect(await clientFor(sim).listAllStacks()).toHaveLength(70);
    expect(sim.calls).toHaveLength(1);
  });

  it("asks once when there are no stacks", async () => {
    const sim = await start();
    expect(await clientFor(sim).listAllStacks()).toEqual([]);
    expect(sim.calls).toHaveLength(1);
  });

  it("finds one stack by name, with its state", async () => {
    const sim = await start({ stacks: [{ name: "web", state: "down" }, { name: "web-2" }] });
    const client = clientFor(sim);
    expect((await client.findStack("web"))?.info.state).toBe("down");
    expect(await client.findStack("nope")).toBeUndefined();
    expect((await client.getStack("web-2")).name).toBe("web-2");
  });

  it("sets poll-for-updates, deletes stacks and lists Updates", async () => {
    const sim = await start({ stacks: [{ name: "web" }, { name: "db" }] });
    const client = clientFor(sim);
    expect((await client.updateStack("web", { poll_for_updates: true })).config?.poll_for_updates).toBe(true);
    expect((await client.deleteStack("db")).name).toBe("db");
    const { updates, next_page } = await client.listUpdates({ operation: { $in: ["DeleteStack"] } });
    expect(updates.map((update) => update.operation)).toEqual(["DeleteStack"]);
    expect(next_page).toBeNull();
  });
});

describe("Komodo client: actions", () => {
  it("follows an Update to its successful end", async () => {
    const sim = await start({ stacks: [{ name: "web", state: "down" }], faults: { updateDelayMs: 30 } });
    const client = clientFor(sim);
    const update = await client.execute("DeployStack", { stack: "web" });
    expect(update.status).toBe("InProgress");
    const done = await client.waitForUpdate(update, { deadline: inOneMinute() });
    expect(done).toMatchObject({ status: "Complete", success: true });
    expect((await client.findStack("web"))?.info.state).toBe("running");
  });

  it("gives the reason of a failed Update", async () => {
    const sim = await start({
      stacks: [{ name: "docs", faults: { failWith: DEMO_DEPLOY_ERROR } }, { name: "web" }],
    });
    const client = clientFor(sim);
    const done = await client.waitForUpdate(await client.execute("DeployStack", { stack: "docs" }), {
      deadline: inOneMinute(),
    });
    expect(done.success).toBe(false);
    expect(failedUpdateReason(done)).toBe(DEMO_DEPLOY_ERROR);

    sim.faults.setStack("web", { forbidden: true });
    const refused = await upstreamFailure(
      client.executeAndWait("PullStack", { stack: "web" }, { deadline: inOneMinute() }),
    );
    expect(refused.kind).toBe("failed-update");
    expect(refused.message).toBe(
      "User does not have required permissions on this Stack. Must have at least Execute permissions",
    );

    sim.faults.setStack("web", { forbidden: undefined, busy: true });
    const busy = await upstreamFailure(
      client.executeAndWait("PullStack", { stack: "web" }, { deadline: inOneMinute() }),
    );
    expect(busy.message).toBe("Resource is busy");
  });

  it("falls back to a generic reason when the failed stage says nothing", () => {
    const update = {
      operation: "PullStack",
      logs: [
        {
          stage: "Compose Pull",
          command: "",
          stdout: " ",
          stderr: "",
          success: false,
          start_ts: 0,
          end_ts: 0,
        },
      ],
    } as unknown as Parameters<typeof failedUpdateReason>[0];
    expect(failedUpdateReason(update)).toBe("Komodo reported PullStack as failed without saying why");
  });

  it("sees an Update that completes at once with one look, well before any one-second step", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    const client = clientFor(sim);
    const update = await client.execute("PullStack", { stack: "web" });
    sim.clearCalls();
    const began = performance.now();
    await client.waitForUpdate(update, { deadline: inOneMinute() });
    expect(performance.now() - began).toBeLessThan(500);
    expect(sim.calls.map((call) => call.type)).toEqual(["GetUpdate"]);
  });

  it("backs off while waiting: few polls, no fixed one-second steps", async () => {
    const sim = await start({ stacks: [{ name: "web", faults: { updateDelayMs: 300 } }] });
    const client = clientFor(sim);
    const update = await client.execute("PullStack", { stack: "web" });
    sim.clearCalls();
    const began = performance.now();
    await client.waitForUpdate(update, { deadline: inOneMinute() });
    const elapsed = performance.now() - began;
    // 10, 20, 40, 80, 160 ms... reaches 300 ms on the 5th or 6th look (fewer when timers run late on a
    // busy machine). A fixed 10 ms poll would take ~30 looks; a fixed 1 s wait one look after 1 s.
    expect(sim.calls.length).toBeGreaterThanOrEqual(2);
    expect(sim.calls.length).toBeLessThanOrEqual(8);
    expect(elapsed).toBeLessThan(1500);
  });

  it("returns an already complete Update without asking again", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    const client = clientFor(sim);
    const done = await client.waitForUpdate(await client.execute("PullStack", { stack: "web" }), {
      deadline: inOneMinute(),
    });
    sim.clearCalls();
    expect(await client.waitForUpdate(done, { deadline: deadlineIn(-1) })).toBe(done);
    expect(sim.calls).toEqual([]);
  });

  it("stops at the deadline with a timeout error", async () => {
    const sim = await start({ stacks: [{ name: "web", faults: { updateDelayMs: 10_000 } }] });
    const client = clientFor(sim);
    const update = await client.execute("DeployStack", { stack: "web" });
    const began = performance.now();
    const error = await upstreamFailure(client.waitForUpdate(update, { deadline: deadlineIn(150) }));
    expect(error.kind).toBe("timeout");
    expect(performance.now() - began).toBeLessThan(400);
  });

  it("stops waiting when its signal aborts", async () => {
    const sim = await start({ stacks: [{ name: "web", faults: { updateDelayMs: 10_000 } }] });
    const client = clientFor(sim);
    const update = await client.execute("DeployStack", { stack: "web" });
    const controller = new AbortController();
    const reason = new Error("shutting down");
    setTimeout(() => controller.abort(reason), 30);
    await expect(
      client.waitForUpdate(update, { deadline: inOneMinute(), signal: controller.signal }),
    ).rejects.toBe(reason);
  });

  it("runs 200 deploys side by side without slowing down", async () => {
    const sim = await start({ stacks: 200 });
    const client = clientFor(sim);
    const names = (await client.listAllStacks()).map((stack) => stack.name);
    const began = performance.now();
    const results = await Promise.all(
      names.map((stack) => client.executeAndWait("DeployStack", { stack }, { deadline: inOneMinute() })),
    );
    expect(results.every((update) => update.success)).toBe(true);
    expect(performance.now() - began).toBeLessThan(10_000);
  });
});

describe("Komodo client: errors", () => {
  it("turns Komodo's {error, trace} replies into rejected errors", async () => {
    const sim = await start();
    const client = clientFor(sim);
    const unknown = await upstreamFailure(client.execute("DeployStack", { stack: "nope" }));
    expect(unknown).toMatchObject({
      kind: "rejected",
      status: 500,
      message: "Did not find any Stack matching nope",
    });

    const wrongSecret = createKomodoClient({ url: sim.url, key: sim.key, secret: "S_wrong_S" });
    const refused = await upstreamFailure(wrongSecret.getVersion());
    expect(refused).toMatchObject({ kind: "rejected", status: 401, message: "Invalid user credentials" });
  });

  it("names the host when it cannot connect", async () => {
    const client = createKomodoClient({ url: `${UNREACHABLE_URL}/`, key: "k", secret: "s" });
    const error = await upstreamFailure(client.getVersion());
    expect(error.kind).toBe("unreachable");
    expect(error.message).toBe(`Komodo at ${UNREACHABLE_URL} is unreachable: connection refused`);
  });

  it("fails fast when Komodo goes down", async () => {
    const sim = await start({ stacks: [{ name: "web" }] });
    const client = clientFor(sim);
    await client.getVersion();
    await sim.faults.set({ down: true });
    const began = performance.now();
    const error = await upstreamFailure(client.listAllStacks());
    expect(error.kind).toBe("unreachable");
    expect(performance.now() - began).toBeLessThan(1_000);
  });

  it("times out a call that takes too long", async () => {
    const sim = await start({ faults: { latencyMs: 500 } });
    const error = await upstreamFailure(clientFor(sim, { timeoutMs: 100 }).getVersion());
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe(`Komodo at ${sim.url} did not answer within 100 ms`);
  });

  it("reports a body that is not JSON", async () => {
    const sim = await start({ faults: { garbage: true } });
    const error = await upstreamFailure(clientFor(sim).listAllStacks());
    expect(error).toMatchObject({
      kind: "bad-response",
      message: `Komodo at ${sim.url} answered with a body that is not JSON`,
    });
  });

  it("does not follow redirects, so the secret stays with the configured host", async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(307, { location: "https://elsewhere.example/read/GetVersion" });
      response.end();
    });
    const error = await upstreamFailure(createKomodoClient({ url, key: "k", secret: "s" }).getVersion());
    expect(error).toMatchObject({ kind: "rejected", status: 307 });
    expect(error.message).toContain("redirects to https://elsewhere.example/read/GetVersion");
  });

  it("times out an answer that stops halfway", async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"version": ');
    });
    const client = createKomodoClient({ url, key: "k", secret: "s" }, { timeoutMs: 150 });
    expect(await upstreamFailure(client.getVersion())).toMatchObject({ kind: "timeout" });
  });

  it("reports a connection that breaks halfway through the answer", async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      response.write('{"version": ', () => response.socket?.destroy());
    });
    const error = await upstreamFailure(createKomodoClient({ url, key: "k", secret: "s" }).getVersion());
    expect(error.kind).toBe("unreachable");
    expect(error.message).toMatch(/is unreachable: connection (reset|closed unexpectedly)$/);
  });

  it("reuses connections, and gets over a server closing them while idle", async () => {
    const { server, url } = await serve((request, response) => {
      // Read first: Node closes a connection whose request body was left unread.
      request.resume().on("end", () => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"version":"2.3.2"}');
      });
    });
    const connections: unknown[] = [];
    server.on("connection", (socket) => connections.push(socket));
    // The client's own sockets, to wait until it has seen the server close the idle one.
    const clientSockets: Socket[] = [];
    const opened = ({ socket }: { socket: Socket }) => clientSockets.push(socket);
    subscribe("net.client.socket", opened as (message: unknown) => void);
    const client = createKomodoClient({ url, key: "k", secret: "s" });
    for (let call = 0; call < 5; call++) await client.getVersion();
    unsubscribe("net.client.socket", opened as (message: unknown) => void);
    expect(connections).toHaveLength(1);
    expect(clientSockets).toHaveLength(1);
    const closed = once(clientSockets[0]!, "close");
    server.closeIdleConnections();
    await closed;
    expect(await client.getVersion()).toBe("2.3.2");
    expect(connections).toHaveLength(2);
    client.close();
  });

  it("refuses URLs that are not http(s)", () => {
    expect(() => createKomodoClient({ url: "ftp://komodo", key: "k", secret: "s" })).toThrow(UpstreamError);
  });
});

describe("Komodo client: secrets", () => {
  const key = "K_canaryKey0000000000000000000000000000000_K";
  const secret = "S_canarySecret000000000000000000000000000_S";
  const leaks = (error: unknown) => {
    const shown = [
      inspect(error, { depth: Infinity, showHidden: true }),
      JSON.stringify(error),
      String(error),
    ].join("\n");
    return shown.includes("canary");
  };

  it("never puts the key or secret in an error", async () => {
    const sim = await start({
      key,
      secret: "S_theRealSecret_S",
      stacks: [{ name: "web", faults: { failWith: `bad ${key}` } }],
    });
    const rejected = await upstreamFailure(createKomodoClient({ url: sim.url, key, secret }).getVersion());
    expect(rejected.status).toBe(401);

    const unreachable = await upstreamFailure(
      createKomodoClient({ url: UNREACHABLE_URL, key, secret }).getVersion(),
    );
    const badHeader = await upstreamFailure(
      createKomodoClient({ url: sim.url, key, secret: `${secret}\nX-Injected: 1` }).getVersion(),
    );
    expect(badHeader.kind).toBe("unreachable");

    const withRealSecret = createKomodoClient(
      { url: sim.url, key, secret: "S_theRealSecret_S" },
      { timeoutMs: 50 },
    );
    const failedUpdate = await upstreamFailure(
      withRealSecret.executeAndWait("DeployStack", { stack: "web" }, { deadline: inOneMinute() }),
    );
    expect(failedUpdate.message).toBe("bad [redacted]");
    await sim.faults.set({ latencyMs: 200 });
    const timeout = await upstreamFailure(withRealSecret.getVersion());
    await sim.faults.set({ latencyMs: undefined, garbage: true });
    const garbage = await upstreamFailure(withRealSecret.getVersion());

    for (const error of [rejected, unreachable, badHeader, failedUpdate, timeout, garbage])
      expect(leaks(error)).toBe(false);
    expect(leaks(withRealSecret)).toBe(false);
  });

  it("redacts the secret when a server echoes it back", async () => {
    const { url } = await serve((request, response) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: `bad secret ${request.headers["x-api-secret"]}`,
          trace: [`key ${request.headers["x-api-key"]}`],
        }),
      );
    });
    const error = await upstreamFailure(createKomodoClient({ url, key, secret }).getVersion());
    expect(error).toMatchObject({
      kind: "rejected",
      message: "bad secret [redacted]",
      detail: "key [redacted]",
    });
    expect(leaks(error)).toBe(false);
  });
});

describe("Komodo client: looking stacks up by name", () => {
  it("finds several stacks in one request", async () => {
    const sim = await start({ stacks: 30 });
    const names = (await clientFor(sim).listAllStacks()).slice(3, 6).map((stack) => stack.name);
    sim.clearCalls();
    const found = await clientFor(sim).findStacks([...names, "no-such-stack"]);
    expect(found.map((stack) => stack.name).sort()).toEqual([...names].sort());
    expect(sim.calls).toHaveLength(1);
  });
});
