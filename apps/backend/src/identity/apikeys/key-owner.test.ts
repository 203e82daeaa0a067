import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConnectedBackend, type TestBackend } from "../../testing/harness.ts";
import { invitePerson } from "../people/testing.ts";

let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let app: TestBackend;
let admin: string;
let stack: string;
beforeAll(async () => {
  world = await startConnectedBackend({ komodo: { stacks: 3 } });
  ({ app, cookie: admin } = world);
  stack = (await app.request("/api/v0/stacks", { headers: { cookie: admin } })).json.stacks[0].name;
});
afterAll(() => world.close());

const deployWith = (key: string) =>
  app.request("/api/v0/deploy", {
    method: "POST",
    headers: { "x-api-key": key },
    json: { stack, action: "pull" },
  });
const listWith = (key: string) => app.request("/api/v0/stacks", { headers: { "x-api-key": key } });
const setPerson = (id: string, json: object) =>
  app.request(`/api/v0/users/${id}`, { method: "PATCH", headers: { cookie: admin }, json });

describe("an API key has its owner's rights now", () => {
  it("a viewer's key reads but never deploys, and its 403 names the owner's role", async () => {
    const viewer = await invitePerson(app, admin, { email: "viewer-key@example.test", role: "viewer" });
    const { key } = await app.createApiKey(viewer.cookie, "read-only");
    expect((await listWith(key)).status).toBe(200);
    const refused = await deployWith(key);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      "This API key acts with its owner's role, viewer, which may not deploy: ask an admin",
    );
    expect(world.komodo.calls.filter((call) => call.api !== "read")).toEqual([]);
  });

  it("shrinks at once when the owner is demoted, and grows back when they are promoted", async () => {
    const deployer = await invitePerson(app, admin, { email: "deployer-key@example.test", role: "deployer" });
    const { key } = await app.createApiKey(deployer.cookie, "pipeline");
    expect((await deployWith(key)).status).toBe(200);
    expect((await setPerson(deployer.id, { role: "viewer" })).status).toBe(200);
    const refused = await deployWith(key);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/owner's role, viewer/);
    expect((await listWith(key)).status).toBe(200);
    expect((await setPerson(deployer.id, { role: "deployer" })).status).toBe(200);
    expect((await deployWith(key)).status).toBe(200);
  });

  it("gets 401 while its owner is disabled, and works again once they are enabled", async () => {
    const owner = await invitePerson(app, admin, { email: "disabled-key@example.test", role: "deployer" });
    const { key } = await app.createApiKey(owner.cookie, "paused");
    expect((await setPerson(owner.id, { disabled: true })).status).toBe(200);
    for (const answer of [await listWith(key), await deployWith(key)]) {
      expect(answer.status).toBe(401);
      expect(answer.json.message).toMatch(/owner is disabled/);
    }
    expect((await setPerson(owner.id, { disabled: false })).status).toBe(200);
    expect((await listWith(key)).status).toBe(200);
  });

  it("gets 401 once its owner is deleted", async () => {
    const owner = await invitePerson(app, admin, { email: "deleted-key@example.test", role: "deployer" });
    const { key } = await app.createApiKey(owner.cookie, "orphan");
    const deleted = await app.request(`/api/v0/users/${owner.id}`, {
      method: "DELETE",
      headers: { cookie: admin },
    });
    expect(deleted.status).toBe(200);
    const refused = await listWith(key);
    expect(refused.status).toBe(401);
    expect(refused.json.message).toMatch(/not valid/);
  });

  it("the history keeps the names of a deleted person and of their key", async () => {
    const owner = await invitePerson(app, admin, {
      email: "history@example.test",
      role: "deployer",
      name: "Hist Ory",
    });
    const { key } = await app.createApiKey(owner.cookie, "historic-key");
    expect((await deployWith(key)).status).toBe(200);
    const bySession = await app.request("/api/v0/deploy", {
      method: "POST",
      headers: { cookie: owner.cookie },
      json: { stack, action: "pull" },
    });
    expect(bySession.status).toBe(200);
    await app.request(`/api/v0/users/${owner.id}`, { method: "DELETE", headers: { cookie: admin } });
    const history = await app.request("/api/v0/history", { headers: { cookie: admin } });
    const actors = history.json.history.map((entry: { actor: string }) => entry.actor);
    expect(actors).toContain("API Key: historic-key");
    expect(actors).toContain("Hist Ory");
  });
});
