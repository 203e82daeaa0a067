import type { MiddlewareHandler } from "hono";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** What a browser says of a request made by a page of this very site, or typed in by its user. */
const OWN_SITE = new Set(["same-origin", "none"]);

/** The origin the browser used, as the gateway forwarded it (or the Host header when called directly). */
export function requestOrigin(headers: Headers): string | undefined {
  const host = headers.get("x-forwarded-host") ?? headers.get("host");
  if (!host) return undefined;
  const protocol = headers.get("x-forwarded-proto") ?? "http";
  return `${protocol}://${host}`;
}

/**
 * Refuses state-changing requests that a browser sent from another site: a foreign `Origin`, or a
 * `Sec-Fetch-Site` other than this site's own. Whatever they carry: a session cookie, or none at
 * all (an invitation accepted from another site would sign the victim into someone else's
 * account). Pipelines and command-line clients send neither header.
 */
export function crossOriginGuard(appUrl: string): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    const headers = c.req.raw.headers;
    const origin = headers.get("origin");
    const fetchSite = headers.get("sec-fetch-site");
    const foreign =
      (origin !== null && origin !== appUrl && origin !== requestOrigin(headers)) ||
      (fetchSite !== null && !OWN_SITE.has(fetchSite));
    if (!foreign) return next();
    return c.json({ code: "FORBIDDEN", status: 403, message: "Cross-origin request refused" }, 403);
  };
}
