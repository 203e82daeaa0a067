import type { MiddlewareHandler } from "hono";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The origin the browser used, as the gateway forwarded it (or the Host header when called directly). */
export function requestOrigin(headers: Headers): string | undefined {
  const host = headers.get("x-forwarded-host") ?? headers.get("host");
  if (!host) return undefined;
  const protocol = headers.get("x-forwarded-proto") ?? "http";
  return `${protocol}://${host}`;
}

/**
 * Refuses state-changing requests that ride on the session cookie from another site.
 * Requests with an API key carry no ambient credential, so they are not at risk.
 */
export function crossOriginGuard(appUrl: string): MiddlewareHandler {
  return async (c, next) => {
    const headers = c.req.raw.headers;
    if (SAFE_METHODS.has(c.req.method) || headers.has("x-api-key") || !headers.has("cookie")) return next();
    const origin = headers.get("origin");
    const fetchSite = headers.get("sec-fetch-site");
    const allowed = origin
      ? origin === appUrl || origin === requestOrigin(headers)
      : !fetchSite || fetchSite === "same-origin" || fetchSite === "none";
    if (allowed) return next();
    return c.json({ code: "FORBIDDEN", status: 403, message: "Cross-origin request refused" }, 403);
  };
}
