import { ORPCError } from "@orpc/server";
import type { AccessRule } from "@stackgate/contract";
import { admitCaller } from "../identity/access.ts";
import type { Authenticate } from "../identity/authenticate.ts";
import type { Metrics } from "./metrics.ts";

/** Who may read `/metrics`: only an API key whose scope includes `metrics`. */
const METRICS_ACCESS: AccessRule & { name: string } = {
  access: "keyOnly",
  permission: "read",
  keyScope: { metrics: true },
  name: "metrics",
};

const json = (status: number, code: string, message: string) =>
  new Response(JSON.stringify({ code, status, message }), {
    status,
    headers: { "content-type": "application/json" },
  });

/**
 * `GET /metrics`, for a key sent as `x-api-key` or as `Authorization: Bearer <key>` (what
 * Prometheus's scrape configuration sends).
 */
export function metricsEndpoint({ authenticate, metrics }: { authenticate: Authenticate; metrics: Metrics }) {
  return async (request: Request): Promise<Response> => {
    const headers = new Headers(request.headers);
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1];
    if (bearer && !headers.has("x-api-key")) headers.set("x-api-key", bearer);
    try {
      await admitCaller(authenticate, headers, METRICS_ACCESS);
    } catch (error) {
      if (error instanceof ORPCError) return json(error.status, error.code, error.message);
      throw error;
    }
    return new Response(await metrics.render(), { headers: { "content-type": metrics.contentType } });
  };
}
