import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBackend, type TestBackend } from "../../backend/src/testing/harness.ts";
import { createGateway, securityHeaders } from "./gateway.ts";

async function listen(server: Server) {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Stands in for the Astro server: echoes what it received, streams events on /events-probe. */
function startFrontendStandIn() {
  const seen: IncomingHttpHeaders[] = [];
  let releaseStream: () => void = () => {};
  const server = createServer((req, res) => {
    seen.push(req.headers);
    if (req.url === "/events-probe") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write('data: {"type":"first"}\n\n');
      releaseStream = () => res.end('data: {"type":"last"}\n\n');
      return;
    }
    if (req.url === "/missing") {
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(`<p>page ${req.url}</p>`);
  });
  return { server, seen, release: () => releaseStream() };
}

let backend: TestBackend;
let frontend: ReturnType<typeof startFrontendStandIn>;
let gatewayUrl: string;
let gateway: Server;

beforeAll(async () => {
  backend = await startTestBackend();
  frontend = startFrontendStandIn();
  const frontendUrl = await listen(frontend.server);
  gateway = createGateway({ backendUrl: backend.url, frontendUrl, version: "9.9.9-test" });
  gatewayUrl = await listen(gateway);
});
afterAll(async () => {
  gateway.closeAllConnections();
  gateway.close();
  frontend.server.closeAllConnections();
  frontend.server.close();
  await backend.close();
});

function expectSecurityHeaders(headers: Headers) {
  for (const [name, value] of Object.entries(securityHeaders)) expect(headers.get(name), name).toBe(value);
  expect(headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
}

describe("gateway", () => {
  it("answers /health itself with the version", async () => {
    const response = await fetch(`${gatewayUrl}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", version: "9.9.9-test" });
    expectSecurityHeaders(response.headers);
  });

  it.each([
    ["/api/v0/apikeys", 401],
    ["/doc", 200],
    ["/reference", 200],
    ["/rpc/apikeys/list", 401],
  ])("routes %s to the backend", async (path, status) => {
    const response = await fetch(gatewayUrl + path, { method: path.startsWith("/rpc") ? "POST" : "GET" });
    expect(response.status).toBe(status);
    expectSecurityHeaders(response.headers);
    await response.body?.cancel();
  });

  it("routes pages to the frontend, with security headers on its 404s too", async () => {
    const page = await fetch(`${gatewayUrl}/stacks?x=1`);
    expect(await page.text()).toBe("<p>page /stacks?x=1</p>");
    expectSecurityHeaders(page.headers);
    const missing = await fetch(`${gatewayUrl}/missing`);
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing.headers);
  });

  it("forwards X-Forwarded-For, -Proto and -Host, and ignores spoofed ones", async () => {
    await fetch(`${gatewayUrl}/forwarded`, { headers: { "x-forwarded-host": "evil.example" } });
    const headers = frontend.seen.at(-1)!;
    expect(headers["x-forwarded-for"]).toMatch(/127\.0\.0\.1/);
    expect(headers["x-forwarded-proto"]).toBe("http");
    expect(headers["x-forwarded-host"]).toBe(new URL(gatewayUrl).host);
  });

  it("passes an event stream through while it is still open", async () => {
    const response = await fetch(`${gatewayUrl}/events-probe`);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    const first = await Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("event was buffered")), 2000)),
    ]);
    expect(new TextDecoder().decode(first.value)).toContain('"first"');
    expect(response.headers.get("content-encoding")).toBeNull();
    frontend.release();
    await reader.cancel();
  });

  it("drops idle connections to a target before the target's keep-alive timeout closes them", async () => {
    const connections: number[] = [];
    const target = createServer((_req, res) => res.end("ok"));
    // Node's default; its agent alone would keep the idle connection for 4 s (the hint minus 1 s).
    target.keepAliveTimeout = 5000;
    target.on("connection", () => connections.push(Date.now()));
    const targetUrl = await listen(target);
    const shortIdle = createGateway({
      backendUrl: targetUrl,
      frontendUrl: targetUrl,
      version: "x",
      idleConnectionMs: 300,
    });
    const shortIdleUrl = await listen(shortIdle);
    try {
      expect(await (await fetch(`${shortIdleUrl}/a`)).text()).toBe("ok");
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await (await fetch(`${shortIdleUrl}/b`)).text()).toBe("ok");
      expect(connections).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await (await fetch(`${shortIdleUrl}/c`)).text()).toBe("ok");
      expect(connections).toHaveLength(2);
    } finally {
      shortIdle.closeAllConnections();
      shortIdle.close();
      target.closeAllConnections();
      target.close();
    }
  });

  it("answers a prompt 502 with security headers when a target is down", async () => {
    const closed = createServer();
    const deadUrl = await listen(closed);
    closed.close();
    const lonely = createGateway({ backendUrl: deadUrl, frontendUrl: deadUrl, version: "x" });
    const lonelyUrl = await listen(lonely);
    try {
      const started = performance.now();
      const response = await fetch(`${lonelyUrl}/api/v0/stacks`, { signal: AbortSignal.timeout(5000) });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(response.status).toBe(502);
      expect((await response.json()).message).toMatch(/backend is not reachable/);
      expectSecurityHeaders(response.headers);
      const page = await fetch(`${lonelyUrl}/`);
      expect(page.status).toBe(502);
      expect((await page.json()).message).toMatch(/frontend/);
    } finally {
      lonely.close();
    }
  });
});
