import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseEnvironmentOf } from "../../testing/database.ts";
import { ADMIN, startTestBackend, type TestBackend } from "../../testing/harness.ts";

const script = join(import.meta.dirname, "reset-password.ts");

/** Runs the script as an operator would, over the running backend's data directory. */
function resetPassword(args: string[], dataDir: string) {
  const child = spawn(process.execPath, [script, ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      ...databaseEnvironmentOf(dataDir),
      BETTER_AUTH_SECRET: "test-secret-that-is-long-enough-for-better-auth",
    },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stdout, stderr })),
  );
}

let app: TestBackend;
beforeAll(async () => {
  app = await startTestBackend();
});
afterAll(() => app.close());

describe("npm run reset-password -- <email>", () => {
  it("sets a new password, prints it once, and signs the user out everywhere", async () => {
    const cookie = await app.signIn();
    expect((await app.request("/api/v0/apikeys", { headers: { cookie } })).status).toBe(200);

    const result = await resetPassword([ADMIN.email.toUpperCase()], app.dataDir);
    expect(result.code).toBe(0);
    const password = /password: +(\S+)/.exec(result.stdout)?.[1];
    expect(password).toMatch(/^\S{12,}$/);
    expect(result.stdout.split(password!)).toHaveLength(2);

    expect((await app.request("/api/v0/apikeys", { headers: { cookie } })).status).toBe(401);
    await expect(app.signIn(ADMIN.email, ADMIN.password)).rejects.toThrow(/401/);
    const signedIn = await app.signIn(ADMIN.email, password);

    const audit = (await app.request("/api/v0/audit?limit=10", { headers: { cookie: signedIn } })).json
      .entries;
    const fromCommandLine = audit.filter((entry: { actor: string }) =>
      entry.actor.startsWith("command line"),
    );
    expect(fromCommandLine).toEqual([
      expect.objectContaining({
        action: "user.sessions-revoked",
        target: ADMIN.email,
        detail: expect.objectContaining({ count: 1, because: "password-reset" }),
      }),
      expect.objectContaining({
        action: "user.password-reset",
        target: ADMIN.email,
        by: { userId: null, email: null, keyId: null },
      }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(password);
  });

  it("names an unknown email in one line and changes nothing", async () => {
    const result = await resetPassword(["nobody@example.test"], app.dataDir);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([expect.stringContaining("nobody@example.test")]);
  });

  it("refuses to run without an email, or where there is no database", async () => {
    const usage = await resetPassword([], app.dataDir);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toMatch(/Usage: npm run reset-password -- <email>/);
    const empty = mkdtempSync(join(tmpdir(), "stackgate-no-db-"));
    try {
      const missing = await resetPassword([ADMIN.email], empty);
      expect(missing.code).toBe(1);
      expect(missing.stderr.trim()).toMatch(/^DATA_DIR: there is no database at .*db\.sqlite/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
