import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../testing/clock.ts";
import { openEventStream } from "../testing/event-stream.ts";
import { startConnectedBackend } from "../testing/harness.ts";
import { invitePerson } from "./people/testing.ts";

// Issue 30, finding 3: a stream opened with a key or a session went on after the person was
// disabled or deleted, the key revoked or expired. Now it ends within a second, as the next
// request of that credential is refused.
const clock = manualClock();
let world: Awaited<ReturnType<typeof startConnectedBackend>>;
beforeAll(async () => {
  world = await startConnectedBackend({ clock, komodo: { stacks: [{ name: "web" }] } });
});
afterAll(() => world.close());

const EVENTS = "/api/v0/deploy/events";
type Stream = Awaited<ReturnType<typeof openEventStream>>;

/** Opens the REST stream and the dashboard's (oRPC) one with these credentials. */
async function openBoth(headers: Record<string, string>) {
  const rest = await openEventStream(world.app.url + EVENTS, headers);
  const rpc = await openEventStream(`${world.app.url}/rpc/deploy/events`, {
    ...headers,
    accept: "text/event-stream",
  });
  expect((await rest.next()).type).toBe("subscribed");
  // oRPC's own protocol wraps each event's data as `{json, meta}`.
  expect((await rpc.next()).json.type).toBe("subscribed");
  return [rest, rpc];
}

/** When the stream ends (performance.now()); fails if it is still open after 3 s. */
async function endOf(stream: Stream) {
  try {
    for (;;) await stream.next(3000);
  } catch (error) {
    expect((error as Error).message).toBe("the event stream ended");
  }
  return performance.now();
}

/**
 * Every stream ends soon after the change is made (its answer). The watch checks every 250 ms
 * (access-watch.test.ts holds it to that); 2 s leaves room for a loaded machine's timers.
 */
async function expectAllEnd(streams: Stream[], change: () => Promise<unknown>) {
  const ends = streams.map(endOf);
  await change();
  const changed = performance.now();
  for (const end of await Promise.all(ends)) expect(end - changed).toBeLessThan(2000);
}

const asAdmin = (path: string, init: { method: string; json?: unknown }) =>
  world.app.request(path, { ...init, headers: { cookie: world.cookie } });
const newKey = async (cookie: string, json: Record<string, unknown> = {}) => {
  const created = await world.app.request("/api/v0/apikeys", {
    method: "POST",
    headers: { cookie },
    json: { name: `key-${Math.random().toString(36).slice(2, 8)}`, ...json },
  });
  expect(created.status, created.text).toBe(200);
  return created.json as { id: string; key: string };
};

describe("an open event stream ends as soon as its access does", () => {
  it("when the person is disabled: their sessions' and keys' streams alike, and none reopens", async () => {
    const person = await invitePerson(world.app, world.cookie, {
      email: "dora@example.test",
      role: "deployer",
    });
    const { key } = await newKey(person.cookie);
    const streams = [
      ...(await openBoth({ cookie: person.cookie })),
      ...(await openBoth({ "x-api-key": key })),
    ];
    await expectAllEnd(streams, () =>
      asAdmin(`/api/v0/users/${person.id}`, { method: "PATCH", json: { disabled: true } }),
    );
    for (const headers of [{ cookie: person.cookie }, { "x-api-key": key }] as Record<string, string>[])
      expect((await world.app.request(EVENTS, { headers })).status).toBe(401);
  });

  it("when the person is deleted", async () => {
    const person = await invitePerson(world.app, world.cookie, { email: "del@example.test", role: "viewer" });
    const { key } = await newKey(person.cookie);
    const streams = [
      ...(await openBoth({ cookie: person.cookie })),
      ...(await openBoth({ "x-api-key": key })),
    ];
    await expectAllEnd(streams, () => asAdmin(`/api/v0/users/${person.id}`, { method: "DELETE" }));
  });

  it("when the key is revoked, and the same owner's other streams go on", async () => {
    const revoked = await newKey(world.cookie);
    const kept = await newKey(world.cookie);
    const ending = await openBoth({ "x-api-key": revoked.key });
    const going = await openEventStream(world.app.url + EVENTS, { "x-api-key": kept.key });
    expect((await going.next()).type).toBe("subscribed");
    await expectAllEnd(ending, () =>
      asAdmin("/api/v0/apikeys", { method: "DELETE", json: { id: revoked.id } }),
    );
    expect((await world.app.request(EVENTS, { headers: { "x-api-key": revoked.key } })).status).toBe(401);
    await world.app.request("/api/v0/deploy", {
      method: "POST",
      headers: { "x-api-key": kept.key },
      json: { stack: "web", action: "pull" },
    });
    expect((await going.next()).type).toBe("started");
    going.close();
  });

  it("when the key expires", async () => {
    const { key } = await newKey(world.cookie, { expiresAt: new Date(clock.now() + 60_000).toISOString() });
    const streams = await openBoth({ "x-api-key": key });
    await expectAllEnd(streams, async () => clock.advance(60_000));
    expect((await world.app.request(EVENTS, { headers: { "x-api-key": key } })).status).toBe(401);
  });

  it("when the session signs out", async () => {
    const person = await invitePerson(world.app, world.cookie, { email: "out@example.test", role: "viewer" });
    const streams = await openBoth({ cookie: person.cookie });
    await expectAllEnd(streams, () =>
      world.app.request("/api/auth/sign-out", {
        method: "POST",
        headers: { cookie: person.cookie },
        json: {},
      }),
    );
    expect((await world.app.request(EVENTS, { headers: { cookie: person.cookie } })).status).toBe(401);
  });

  it("when another session changes the password, which revokes the other sessions", async () => {
    const person = await invitePerson(world.app, world.cookie, { email: "pw@example.test", role: "viewer" });
    const signedIn = await world.app.request("/api/auth/sign-in/email", {
      method: "POST",
      json: { email: person.email, password: person.password },
    });
    const second = signedIn.headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0])
      .join("; ");
    const streams = await openBoth({ cookie: person.cookie });
    await expectAllEnd(streams, () =>
      world.app.request("/api/v0/me/password", {
        method: "POST",
        headers: { cookie: second },
        json: { currentPassword: person.password, newPassword: "a-new-password-0123" },
      }),
    );
  });
});
