import { Agent, createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createProxyServer } from "http-proxy-3";

export interface GatewayOptions {
  backendUrl: string;
  frontendUrl: string;
  version: string;
  /** Keep X-Forwarded-Host/Proto set by a reverse proxy in front of us instead of overwriting them. */
  trustProxy?: boolean;
  /** How long a kept-alive connection to a target may sit idle; below the targets' keep-alive timeout. */
  idleConnectionMs?: number;
}

const contentSecurityPolicy = [
  "default-src 'self'",
  // Astro's island bootstrap and Scalar's configuration are inline scripts.
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

export const securityHeaders: Record<string, string> = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
  "cross-origin-opener-policy": "same-origin",
};

const BACKEND_PREFIXES = ["/api/", "/rpc/", "/reference/"];
const BACKEND_PATHS = new Set(["/doc", "/reference"]);

export function routeFor(pathname: string): "backend" | "frontend" | "health" {
  if (pathname === "/health") return "health";
  if (BACKEND_PATHS.has(pathname) || BACKEND_PREFIXES.some((prefix) => pathname.startsWith(prefix)))
    return "backend";
  return "frontend";
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(securityHeaders)) res.setHeader(name, value);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

/** The single published entry point: routes to backend or frontend and answers /health itself. */
export function createGateway({
  backendUrl,
  frontendUrl,
  version,
  trustProxy = false,
  idleConnectionMs = 4000,
}: GatewayOptions) {
  // Reused connections to backend and frontend: a new TCP connection per request costs more than the
  // request. An idle one is dropped before the target's own keep-alive timeout (Node's default: 5 s)
  // would close it, so a request is never sent down a connection the other end is closing, also for
  // targets that send no Keep-Alive hint for Node's agent to follow.
  const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: idleConnectionMs });
  const proxy = createProxyServer({ xfwd: true, ws: false, agent, connectTimeout: 5000 });

  proxy.on("proxyRes", (proxyRes) => {
    Object.assign(proxyRes.headers, securityHeaders);
    // Server-Sent Events pass through as they arrive: no buffering by anything in between.
    if (String(proxyRes.headers["content-type"] ?? "").startsWith("text/event-stream")) {
      proxyRes.headers["x-accel-buffering"] = "no";
      proxyRes.headers["cache-control"] = "no-cache, no-transform";
    }
  });

  proxy.on("error", (error, req, res) => {
    const target = routeFor(new URL(req.url ?? "/", "http://gateway").pathname);
    const reason = (error as NodeJS.ErrnoException).code ?? error.message;
    if ("writeHead" in res) {
      sendJson(res as ServerResponse, 502, {
        code: "BAD_GATEWAY",
        status: 502,
        message: `The ${target} is not reachable (${reason})`,
      });
    }
  });

  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const pathname = new URL(req.url ?? "/", "http://gateway").pathname;
    const route = routeFor(pathname);
    if (route === "health") {
      sendJson(res, 200, { status: "ok", version });
      return;
    }
    if (!trustProxy) {
      delete req.headers["x-forwarded-host"];
      delete req.headers["x-forwarded-proto"];
      delete req.headers["x-forwarded-port"];
    }
    proxy.web(req, res, { target: route === "backend" ? backendUrl : frontendUrl });
  });
}
