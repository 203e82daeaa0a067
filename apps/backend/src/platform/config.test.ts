import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("configuration", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      appUrl: "http://localhost:8080",
      deployTimeoutMs: 900_000,
      upstreamTimeoutMs: 10_000,
      shutdownGraceMs: 7000,
      sweep: { delayMs: 30_000, intervalMs: 300_000, rescanIntervalMs: 24 * 3_600_000 },
      trivy: { bin: "trivy", serverUrl: "http://127.0.0.1:4954", scanTimeoutMs: 600_000 },
      trustProxy: false,
      signInLimits: { failuresPerAccount: 10, failuresPerAddress: 30, windowMs: 15 * 60_000 },
    });
    expect(config.databasePath).toMatch(/data\/db\.sqlite$/);
  });

  it("names every bad variable", () => {
    const bad = () =>
      loadConfig({
        BACKEND_PORT: "eighty",
        APP_URL: "not a url",
        DEPLOY_TIMEOUT_SECONDS: "-1",
        LOG_LEVEL: "loud",
      });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/BACKEND_PORT[\s\S]*APP_URL[\s\S]*DEPLOY_TIMEOUT_SECONDS[\s\S]*LOG_LEVEL/);
  });

  it("requires the auth secret and a strong one in production", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(/BETTER_AUTH_SECRET: required/);
    expect(() => loadConfig({ BETTER_AUTH_SECRET: "short" })).toThrow(/at least 32 characters/);
  });

  it("makes the backend exit 78 (a configuration error) with a clear message on a bad value", () => {
    const result = spawnSync(process.execPath, [join(import.meta.dirname, "../main.ts")], {
      env: { ...process.env, BACKEND_PORT: "99999", SEED_ADMIN_PASSWORD: "never-used-1" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain("Invalid configuration");
    expect(result.stderr).toContain("BACKEND_PORT");
    expect(result.stderr).not.toContain("never-used-1");
  });
});
