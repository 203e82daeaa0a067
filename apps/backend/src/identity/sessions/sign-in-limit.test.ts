import { afterEach, describe, expect, it } from "vitest";
import { manualClock } from "../../testing/clock.ts";
import { ADMIN, startTestBackend, type TestBackend } from "../../testing/harness.ts";

let app: TestBackend | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const BOB = { email: "bob@example.test", password: "bob-password-123" };

function signInFrom(backend: TestBackend, address: string, email: string, password: string) {
  return backend.request("/api/auth/sign-in/email", {
    method: "POST",
    // As the gateway forwards it: whatever the client claimed, then the address it really saw.
    headers: { "x-forwarded-for": `10.9.9.9, ${address}` },
    json: { email, password },
  });
}

describe("sign-in rate limit (in every mode, here NODE_ENV=test)", () => {
  it("locks an account after 10 failures for 15 minutes, even against the right password", async () => {
    const clock = manualClock();
    app = await startTestBackend({ clock });
    await app.addUser(BOB.email, BOB.password, "Bob");
    const address = "203.0.113.7";

    for (let attempt = 1; attempt <= 10; attempt++) {
      expect((await signInFrom(app, address, ADMIN.email, `wrong-${attempt}`)).status).toBe(401);
    }
    const locked = await signInFrom(app, address, ADMIN.email, "wrong-again");
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("900");
    expect(locked.json).toMatchObject({ code: "TOO_MANY_REQUESTS", status: 429, retryAfterSeconds: 900 });
    expect(locked.json.message).toMatch(/Too many failed sign-ins for this account: try again in 15 minutes/);

    clock.advance(10 * 60_000);
    const rightPassword = await signInFrom(app, "198.51.100.1", ADMIN.email.toUpperCase(), ADMIN.password);
    expect(rightPassword.status).toBe(429);
    expect(rightPassword.headers.get("retry-after")).toBe("300");
    expect(rightPassword.headers.getSetCookie()).toEqual([]);

    // The same address may still sign another account in: the lock is on the account.
    expect((await signInFrom(app, address, BOB.email, BOB.password)).status).toBe(200);

    clock.advance(5 * 60_000);
    expect((await signInFrom(app, address, ADMIN.email, ADMIN.password)).status).toBe(200);
  });

  it("locks an address that fails across many accounts, per SIGN_IN_MAX_FAILURES_PER_IP", async () => {
    const clock = manualClock();
    app = await startTestBackend({
      clock,
      env: { SIGN_IN_MAX_FAILURES_PER_IP: "5", SIGN_IN_WINDOW_MINUTES: "2" },
    });
    const attacker = "203.0.113.66";
    for (let attempt = 1; attempt <= 5; attempt++) {
      const guess = await signInFrom(app, attacker, `nobody-${attempt}@example.test`, "guess-password");
      expect(guess.status).toBe(401);
    }
    const locked = await signInFrom(app, attacker, ADMIN.email, ADMIN.password);
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("120");
    expect(locked.json.message).toMatch(/from your address: try again in 2 minutes/);

    // A spoofed X-Forwarded-For entry does not escape: only the gateway's own entry counts.
    const spoofed = await app.request("/api/auth/sign-in/email", {
      method: "POST",
      headers: { "x-forwarded-for": `198.51.100.99, ${attacker}` },
      json: { email: ADMIN.email, password: ADMIN.password },
    });
    expect(spoofed.status).toBe(429);

    expect((await signInFrom(app, "203.0.113.67", ADMIN.email, ADMIN.password)).status).toBe(200);
    clock.advance(2 * 60_000);
    expect((await signInFrom(app, attacker, ADMIN.email, ADMIN.password)).status).toBe(200);
  });

  it("a successful sign-in clears its account's failures", async () => {
    app = await startTestBackend({ env: { SIGN_IN_MAX_FAILURES_PER_ACCOUNT: "3" } });
    for (let round = 0; round < 3; round++) {
      expect((await signInFrom(app, "192.0.2.1", ADMIN.email, "wrong-password")).status).toBe(401);
      expect((await signInFrom(app, "192.0.2.1", ADMIN.email, "wrong-password")).status).toBe(401);
      expect((await signInFrom(app, "192.0.2.1", ADMIN.email, ADMIN.password)).status).toBe(200);
    }
  });
});
