import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = join(import.meta.dirname, "..");
const required = {
  APP_URL: "https://deploy.example.com",
  BETTER_AUTH_SECRET: "a-secret-long-enough-for-the-test-0123456789",
  SEED_ADMIN_EMAIL: "admin@example.com",
  SEED_ADMIN_PASSWORD: "a-password",
};

function composeConfig(env: Record<string, string>) {
  const result = spawnSync("docker-compose", ["-f", "compose.yml", "config"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
  });
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    missing: result.error !== undefined,
  };
}

const available = !composeConfig(required).missing;
if (!available)
  console.warn("!! compose.yml checks SKIPPED: docker-compose is not installed (CI installs it)");

describe.runIf(available)("compose.yml", () => {
  it("refuses to start without the required variables", () => {
    const { status, stderr } = composeConfig({});
    expect(status).not.toBe(0);
    expect(stderr).toMatch(/APP_URL|BETTER_AUTH_SECRET|SEED_ADMIN/);
  });

  it("publishes only the gateway, on PORT (default 80) to 80", () => {
    const config = parse(composeConfig(required).stdout);
    const published = Object.entries(config.services as Record<string, { ports?: unknown[] }>)
      .filter(([, service]) => service.ports?.length)
      .map(([name]) => name);
    expect(published).toEqual(["gateway"]);
    expect(config.services.gateway.ports).toEqual([{ published: 80, target: 80 }]);
    const custom = parse(composeConfig({ ...required, PORT: "8088" }).stdout);
    expect(custom.services.gateway.ports).toEqual([{ published: 8088, target: 80 }]);
  });

  it("keeps the internal ports inside the network: frontend 4321, backend 3000, trivy 4954", () => {
    const { services } = parse(composeConfig(required).stdout);
    expect(services.frontend.expose).toEqual(["4321"]);
    expect(services.backend.expose).toEqual(["3000"]);
    expect(services.trivy.expose).toEqual(["4954"]);
  });

  it("holds all data in one named volume at /data, and Trivy's cache on its own", () => {
    const { services, volumes } = parse(composeConfig(required).stdout);
    expect(services.backend.volumes).toEqual(["stackgate-data:/data:rw"]);
    expect(Object.keys(volumes).sort()).toEqual(["stackgate-data", "trivy-cache"]);
    expect(services.trivy.volumes).toEqual(["trivy-cache:/cache:rw"]);
  });

  it("pulls every Stackgate image from one prefix, ghcr.io/stackgate unless STACKGATE_IMAGE_PREFIX says otherwise", () => {
    const images = (env: Record<string, string>) => {
      const { services } = parse(composeConfig(env).stdout);
      return ["gateway", "backend", "frontend"].map((name) => services[name].image);
    };
    expect(images(required)).toEqual([
      "ghcr.io/stackgate/stackgate-gateway:latest",
      "ghcr.io/stackgate/stackgate-backend:latest",
      "ghcr.io/stackgate/stackgate-frontend:latest",
    ]);
    expect(
      images({ ...required, STACKGATE_IMAGE_PREFIX: "registry.example.com/ops", STACKGATE_VERSION: "1.2.0" }),
    ).toEqual([
      "registry.example.com/ops/stackgate-gateway:1.2.0",
      "registry.example.com/ops/stackgate-backend:1.2.0",
      "registry.example.com/ops/stackgate-frontend:1.2.0",
    ]);
  });

  it("lets the non-root gateway bind port 80 on any engine", () => {
    const { services } = parse(composeConfig(required).stdout);
    expect(services.gateway.sysctls).toEqual({ "net.ipv4.ip_unprivileged_port_start": "0" });
  });

  it("pins the Trivy image by version and digest, and restarts and health-checks every service", () => {
    const { services } = parse(composeConfig(required).stdout);
    expect(services.trivy.image).toMatch(/^aquasec\/trivy:\d+\.\d+\.\d+@sha256:[0-9a-f]{64}$/);
    for (const [name, service] of Object.entries(services as Record<string, Record<string, unknown>>)) {
      expect(service.restart, name).toBe("unless-stopped");
      expect(service.init, name).toBe(true);
    }
    expect(services.gateway.depends_on).toMatchObject({
      backend: { condition: "service_healthy" },
      frontend: { condition: "service_healthy" },
    });
    expect(services.backend.depends_on).toMatchObject({ trivy: { condition: "service_healthy" } });
  });
});
