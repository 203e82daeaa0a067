import type { KomodoSimulator } from "@stackgate/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startConnectedBackend, type TestBackend } from "../testing/harness.ts";

let komodo: KomodoSimulator;
let app: TestBackend;
let cookie: string;
let key: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ komodo, app, cookie, key, close } = await startConnectedBackend({
    komodo: {
      stacks: [
        { name: "web", state: "running", services: [{ service: "app", image: "ghcr.io/acme/web:1.4" }] },
        { name: "api", state: "running" },
        { name: "docs", state: "down" },
        {
          name: "broken",
          faults: { failWith: "Error response from daemon: manifest for acme/broken:2 not found" },
        },
        { name: "locked", faults: { busy: true } },
        { name: "readonly", faults: { forbidden: true } },
        { name: "slow", faults: { updateDelayMs: 10_000 } },
      ],
    },
    // Long enough for a three-step deploy on a loaded machine (1 s was not, once), short enough to wait for.
    env: { DEPLOY_TIMEOUT_SECONDS: "3", UPSTREAM_TIMEOUT_SECONDS: "2" },
    keyName: "release-pipeline",
  }));
});
afterAll(() => close());
beforeEach(async () => {
  await komodo.faults.reset();
  await komodo.settle();
  komodo.clearCalls();
});

const deploy = (stack: string, action: string, headers: Record<string, string> = { cookie }) =>
  app.request("/api/v0/deploy", { method: "POST", headers, json: { stack, action } });

const executes = () => komodo.calls.filter((call) => call.api === "execute").map((call) => call.type);

describe("deploy actions", () => {
  it("pull runs PullStack and follows it to completion", async () => {
    const response = await deploy("web", "pull");
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      success: true,
      message: "Acción 'pull' completada para 'web'",
      stack: "web",
      action: "pull",
    });
    expect(executes()).toEqual(["PullStack"]);
  });

  it("redeploy takes a running stack down, then deploys it", async () => {
    const response = await deploy("web", "redeploy");
    expect(response.status).toBe(200);
    expect(response.json.message).toBe("Acción 'redeploy' completada para 'web'");
    expect(executes()).toEqual(["DestroyStack", "DeployStack"]);
    expect(komodo.inspectStack("web")?.info.state).toBe("running");
  });

  it("redeploy of a stack that is already down only deploys it", async () => {
    await komodo.faults.reset();
    const response = await deploy("docs", "redeploy");
    expect(response.status).toBe(200);
    expect(executes()).toEqual(["DeployStack"]);
  });

  it("pull-redeploy pulls, then takes down, then deploys, each after the previous Update completed", async () => {
    await komodo.faults.set({ updateDelayMs: 150 });
    const response = await deploy("api", "pull-redeploy");
    expect(response.status).toBe(200);
    const steps = komodo.calls.filter((call) => call.api === "execute");
    expect(steps.map((call) => call.type)).toEqual(["PullStack", "DestroyStack", "DeployStack"]);
    expect(steps[1]!.at - steps[0]!.at).toBeGreaterThanOrEqual(150);
    expect(steps[2]!.at - steps[1]!.at).toBeGreaterThanOrEqual(150);
  });

  it("a failed pull stops the redeploy and answers 502 with Komodo's reason", async () => {
    const response = await deploy("broken", "pull-redeploy");
    expect(response.status).toBe(502);
    expect(response.json).toMatchObject({ success: false, stack: "broken", action: "pull-redeploy" });
    expect(response.json.message).toContain("manifest for acme/broken:2 not found");
    expect(executes()).toEqual(["PullStack"]);
  });
});

describe("upstream failures are 502 with the upstream's reason", () => {
  it.each([
    ["busy", "locked", /busy/i],
    ["forbidden", "readonly", /permission/i],
    ["unknown stack", "ghost", /Did not find any Stack matching ghost/],
  ])("%s", async (_label, stack, reason) => {
    const response = await deploy(stack, "pull");
    expect(response.status).toBe(502);
    expect(response.json.message).toMatch(reason);
  });

  it("bad credentials", async () => {
    await komodo.faults.set({ badCredentials: true });
    const response = await deploy("web", "pull");
    expect(response.status).toBe(502);
    expect(response.json.message).toMatch(/Invalid user credentials/);
  });

  it("a garbage body", async () => {
    await komodo.faults.set({ garbage: true });
    const response = await deploy("web", "pull");
    expect(response.status).toBe(502);
    expect(response.json.message).toMatch(/not JSON/i);
  });

  it("an upstream that is down, within seconds", async () => {
    await komodo.faults.set({ down: true });
    const started = performance.now();
    const response = await deploy("web", "redeploy");
    expect(performance.now() - started).toBeLessThan(3000);
    expect(response.status).toBe(502);
    expect(response.json.message).toMatch(/unreachable/i);
  });

  it("504 when Komodo does not finish within DEPLOY_TIMEOUT_SECONDS, recorded as a failure", async () => {
    const response = await deploy("slow", "pull");
    expect(response.status).toBe(504);
    expect(response.json.message).toMatch(/did not finish 'pull' of 'slow' within 3 s/);
    const [latest] = (await app.request("/api/v0/history", { headers: { cookie } })).json.history;
    expect(latest).toMatchObject({ stack: "slow", success: false, message: response.json.message });
  });
});

describe("bad input", () => {
  it.each([
    [{ stack: "web", action: "restart" }, /action/],
    [{ action: "pull" }, /stack/],
    [{ stack: "a/b", action: "pull" }, /stack/],
    [{ stack: "..", action: "pull" }, /stack/],
    [{ stack: "web'\"", action: "pull" }, /stack/],
    [{ stack: "web\u0000\n", action: "pull" }, /stack/],
    [{ stack: "x".repeat(10_000), action: "pull" }, /stack/],
    [{ stack: "web", action: "pull", force: true }, /force/],
  ])("refuses %j with 400, sends nothing upstream and records nothing", async (body, message) => {
    const before = (await app.request("/api/v0/history", { headers: { cookie } })).json.history.length;
    const response = await app.request("/api/v0/deploy", { method: "POST", headers: { cookie }, json: body });
    expect(response.status).toBe(400);
    expect(response.json.message).toMatch(message);
    expect(komodo.calls).toEqual([]);
    expect((await app.request("/api/v0/history", { headers: { cookie } })).json.history.length).toBe(before);
  });
});

describe("ordering", () => {
  it("runs deploys of one stack one after the other, and of different stacks side by side", async () => {
    await komodo.faults.set({ updateDelayMs: 300 });
    await Promise.all([deploy("web", "pull"), deploy("web", "pull")]);
    const sameStack = komodo.calls.filter((call) => call.type === "PullStack");
    // The second pull waited for the first Update to complete.
    expect(sameStack[1]!.at - sameStack[0]!.at).toBeGreaterThanOrEqual(300);

    komodo.clearCalls();
    const results = await Promise.all([deploy("web", "pull"), deploy("api", "pull")]);
    expect(results.map((result) => result.status)).toEqual([200, 200]);
    const otherStacks = komodo.calls.filter((call) => call.type === "PullStack");
    // The second pull started before the first Update could have completed.
    expect(otherStacks.map((call) => call.params)).toHaveLength(2);
    expect(Math.abs(otherStacks[1]!.at - otherStacks[0]!.at)).toBeLessThan(300);
  });
});

describe("history", () => {
  it("records every action, success or failure, with the actor, newest first", async () => {
    await deploy("web", "pull");
    await deploy("broken", "redeploy", { "x-api-key": key });
    const { history } = (await app.request("/api/v0/history", { headers: { "x-api-key": key } })).json;
    expect(history[0]).toMatchObject({
      actor: "API Key: release-pipeline",
      via: "apiKey",
      stack: "broken",
      action: "redeploy",
      success: false,
    });
    expect(history[0].message).toContain("manifest for acme/broken:2 not found");
    expect(history[1]).toMatchObject({
      actor: "Ada Admin",
      via: "session",
      stack: "web",
      action: "pull",
      success: true,
      message: "Acción 'pull' completada para 'web'",
    });
    expect(Object.keys(history[0]).sort()).toEqual(
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
  });

  it("returns only the last 100", async () => {
    await Promise.all(Array.from({ length: 105 }, (_, index) => deploy(index % 2 ? "web" : "api", "pull")));
    const { history } = (await app.request("/api/v0/history", { headers: { cookie } })).json;
    expect(history).toHaveLength(100);
    const times = history.map((entry: { createdAt: string }) => Date.parse(entry.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});
