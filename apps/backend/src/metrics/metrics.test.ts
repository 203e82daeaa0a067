import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway } from "../../../gateway/src/gateway.ts";
import { startConnectedBackend } from "../testing/harness.ts";

const PROMETHEUS = process.env.PROMETHEUS_BIN ?? "/usr/bin/prometheus";
const havePrometheus = existsSync(PROMETHEUS);
if (!havePrometheus && process.env.CI === "true") {
  throw new Error(`No Prometheus at ${PROMETHEUS}: CI never skips this test (apt-get install -y prometheus)`);
}
if (!havePrometheus) {
  const line = "!".repeat(78);
  console.warn(
    `${line}\n!! PROMETHEUS TEST SKIPPED: no ${PROMETHEUS}\n` +
      `!! Install it (apt-get install -y prometheus) or set PROMETHEUS_BIN. CI always has one.\n${line}`,
  );
}

let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let gateway: Server;
let gatewayUrl: string;
let metricsKey: string;

const scrape = (headers: Record<string, string>) => fetch(`${gatewayUrl}/metrics`, { headers });
const deploy = (stack: string) =>
  world.app.request("/api/v0/deploy", {
    method: "POST",
    headers: { "x-api-key": world.key },
    json: { stack, action: "pull" },
  });

beforeAll(async () => {
  world = await startConnectedBackend({
    komodo: {
      stacks: [{ name: "web-1" }, { name: "broken", faults: { failWith: "pull access denied" } }],
    },
  });
  gateway = createGateway({ backendUrl: world.app.url, frontendUrl: "http://127.0.0.1:9", version: "test" });
  await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  const created = await world.app.request("/api/v0/apikeys", {
    method: "POST",
    headers: { cookie: world.cookie },
    json: { name: "prometheus", scope: { actions: [], read: [], metrics: true } },
  });
  metricsKey = created.json.key;
});
afterAll(async () => {
  gateway.closeAllConnections();
  gateway.close();
  await world.close();
});

describe("GET /metrics", () => {
  it("answers only an API key with the metrics scope", async () => {
    const anonymous = await scrape({});
    expect(anonymous.status).toBe(401);
    const plainKey = await scrape({ "x-api-key": world.key });
    expect(plainKey.status).toBe(403);
    expect((await plainKey.json()).message).toMatch(/scope must include metrics/);
    expect((await scrape({ cookie: world.cookie })).status).toBe(403);
    expect((await scrape({ authorization: "Bearer sg_not-a-key" })).status).toBe(401);
    expect((await scrape({ authorization: `Bearer ${metricsKey}` })).status).toBe(200);
  });

  it("counts deploys, upstream calls, requests and scans in the Prometheus text format, without secrets", async () => {
    const pulled = await deploy("web-1");
    expect(pulled.status, pulled.text).toBe(200);
    expect((await deploy("broken")).status).toBe(502);
    const response = await scrape({ "x-api-key": metricsKey });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain('stackgate_deploys_total{action="pull",outcome="success",caller="apiKey"} 1');
    expect(text).toContain('stackgate_deploys_total{action="pull",outcome="failure",caller="apiKey"} 1');
    expect(text).toMatch(
      /stackgate_deploy_step_duration_seconds_count\{step="PullStack",outcome="success"\} 1/,
    );
    expect(text).toMatch(
      /stackgate_upstream_request_duration_seconds_count\{call="execute\/PullStack"\} \d+/,
    );
    expect(text).toContain(
      'stackgate_http_requests_total{method="POST",route="/api/v0/deploy",status="502"} 1',
    );
    for (const name of [
      "stackgate_scan_queue_length",
      "stackgate_scans_running",
      "stackgate_event_streams_open 0",
      'stackgate_update_stream_state{state="',
      "process_cpu_user_seconds_total",
      "nodejs_eventloop_lag_seconds",
    ]) {
      expect(text).toContain(name);
    }
    for (const secret of [world.key, metricsKey, world.komodo.key, world.komodo.secret]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe.skipIf(!havePrometheus)("a real Prometheus", () => {
  let prometheus: ChildProcess | undefined;
  let directory: string;
  let prometheusUrl: string;
  const output: string[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "stackgate-prometheus-"));
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    const config = join(directory, "prometheus.yml");
    writeFileSync(
      config,
      [
        "global:",
        "  scrape_interval: 1s",
        "scrape_configs:",
        "  - job_name: stackgate",
        "    scrape_interval: 1s",
        "    metrics_path: /metrics",
        "    authorization:",
        "      type: Bearer",
        `      credentials: ${metricsKey}`,
        "    static_configs:",
        `      - targets: ["${new URL(gatewayUrl).host}"]`,
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(directory, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    prometheus.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    prometheus.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  });
  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once("exit", resolve));
      prometheus.kill("SIGTERM");
      await exited;
    }
    rmSync(directory, { recursive: true, force: true });
  });

  const query = async (expression: string) => {
    const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expression)}`);
    const body = (await response.json()) as {
      status: string;
      data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    expect(body.status).toBe("success");
    return body.data.result;
  };

  const ready = async () => {
    try {
      return (await fetch(`${prometheusUrl}/-/ready`)).status;
    } catch {
      return 0;
    }
  };

  it("scrapes Stackgate through the gateway and answers the deploy counter through its HTTP API", async () => {
    await expect.poll(ready, { timeout: 30_000, interval: 200 }).toBe(200);
    expect((await deploy("web-1")).status).toBe(200);
    const successfulPulls = async () =>
      (await query('stackgate_deploys_total{action="pull",outcome="success",caller="apiKey"}'))[0]?.value[1];
    await expect.poll(successfulPulls, { timeout: 30_000, interval: 250 }).toBe("2");
    const [up] = await query('up{job="stackgate"}');
    expect(up?.value[1], output.join("")).toBe("1");
    expect(await query("stackgate_deploy_step_duration_seconds_count")).not.toEqual([]);
  }, 40_000);
});
