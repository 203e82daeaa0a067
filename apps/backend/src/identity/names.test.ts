import { withoutUnsafeCharacters } from "@stackgate/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, startConnectedBackend } from "../testing/harness.ts";
import { invitePerson } from "./people/testing.ts";

// Issue 30, finding 6: a deployer renamed to the admin's name and deployed, and the history row
// was the admin's to the letter; names took U+202E and lone surrogates.
let world: Awaited<ReturnType<typeof startConnectedBackend>>;
beforeAll(async () => {
  world = await startConnectedBackend({ komodo: { stacks: [{ name: "web" }] } });
});
afterAll(() => world.close());

const renameTo = (cookie: string, name: string) =>
  world.app.request("/api/v0/me", { method: "PATCH", headers: { cookie }, json: { name } });

describe("who acted, beyond the name shown", () => {
  it("tells a deployer who took the admin's name from the admin, in the history and the audit", async () => {
    const mallory = await invitePerson(world.app, world.cookie, {
      email: "mallory@example.test",
      role: "deployer",
    });
    expect((await renameTo(mallory.cookie, ADMIN.name)).status).toBe(200);
    const deployAs = (cookie: string) =>
      world.app.request("/api/v0/deploy", {
        method: "POST",
        headers: { cookie },
        json: { stack: "web", action: "pull" },
      });
    await deployAs(mallory.cookie);
    await deployAs(world.cookie);
    const { key, id: keyId } = await world.app.createApiKey(world.cookie, "pipeline");
    await world.app.request("/api/v0/deploy", {
      method: "POST",
      headers: { "x-api-key": key },
      json: { stack: "web", action: "pull" },
    });

    const history = (
      await world.app.request("/api/v0/history?limit=3", { headers: { cookie: world.cookie } })
    ).json.history;
    const adminId = (await world.app.request("/api/v0/me", { headers: { cookie: world.cookie } })).json.id;
    expect(history.map((entry: { actor: string; by: unknown }) => [entry.actor, entry.by])).toEqual([
      ["API Key: pipeline", { userId: adminId, email: ADMIN.email, keyId }],
      [ADMIN.name, { userId: adminId, email: ADMIN.email, keyId: null }],
      [ADMIN.name, { userId: mallory.id, email: mallory.email, keyId: null }],
    ]);
    const audit = (await world.app.request("/api/v0/audit?limit=20", { headers: { cookie: world.cookie } }))
      .json.entries;
    expect(audit.find((entry: { action: string }) => entry.action === "user.renamed")).toMatchObject({
      actor: mallory.name,
      by: { userId: mallory.id, email: mallory.email, keyId: null },
      detail: { from: mallory.name, to: ADMIN.name },
    });
  });
});

describe("a name", () => {
  it.each([
    ["a right-to-left override", "Ada\u202Eevil"],
    ["a bidirectional isolate", "Ada\u2066x\u2069"],
    ["a control character", "Ada\u0007"],
    ["a newline", "Ada\nLovelace"],
    ["a zero-width space", "Ad\u200Ba"],
    ["a lone surrogate", "Ada\uD800"],
  ])("with %s is refused with a 400 naming the field, for people and for keys", async (_, name) => {
    const person = await renameTo(world.cookie, name);
    expect(person.status).toBe(400);
    expect(person.json.message).toMatch(/^name: name must (not hold|be valid Unicode)/);
    const key = await world.app.request("/api/v0/apikeys", {
      method: "POST",
      headers: { cookie: world.cookie },
      json: { name },
    });
    expect(key.status).toBe(400);
    expect(key.json.message).toMatch(/name must/);
  });

  it("keeps what scripts and emoji need", async () => {
    for (const name of ["Zoë Ñúñez", "محمد", "👩‍💻 Ada", "می‌خواهم"]) {
      const renamed = await renameTo(world.cookie, name);
      expect(renamed.status, name).toBe(200);
      expect(renamed.json.name).toBe(name);
    }
    await renameTo(world.cookie, ADMIN.name);
  });

  it("taken from an identity provider is cleaned of the same characters", () => {
    expect(withoutUnsafeCharacters("Ada\u202E Lovelace\u0000")).toBe("Ada Lovelace");
    expect(withoutUnsafeCharacters("Ada\uD800")).toBe("Ada\uFFFD");
    expect(withoutUnsafeCharacters("👩‍💻")).toBe("👩‍💻");
  });
});
