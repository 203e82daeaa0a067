import { allowsMetrics, describeScope } from "../identity/apikeys/scope.ts";
import { type Authenticate, refusalOf } from "../identity/caller.ts";
import type { Metrics } from "./metrics.ts";

const json = (status: number, code: string, message: string) =>
  new Response(JSON.stringify({ code, status, message }), {
    status,
    headers: { "content-type": "application/json" },
  });

/**
 * `GET /metrics`: only an API key whose scope includes `metrics`, sent as `x-api-key` or as
 * `Authorization: Bearer <key>` (what Prometheus's scrape configuration sends).
 */
export function metricsEndpoint({ authenticate, metrics }: { authenticate: Authenticate; metrics: Metrics }) {
  return async (request: Request): Promise<Response> => {
    const headers = new Headers(request.headers);
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1];
    if (bearer && !headers.has("x-api-key")) headers.set("x-api-key", bearer);
    const authentication = await authenticate(headers);
    if (authentication.kind !== "caller") return json(401, "UNAUTHORIZED", refusalOf(authentication));
    const { caller } = authentication;
    if (caller.via !== "apiKey") {
      return json(
        403,
        "FORBIDDEN",
        "The metrics need an API key whose scope includes metrics, not a session",
      );
    }
    if (!allowsMetrics(caller.scope)) {
      return json(
        403,
        "FORBIDDEN",
        `This API key may not read the metrics (its scope must include metrics). It may: ${describeScope(caller.scope)}`,
      );
    }
    return new Response(await metrics.render(), { headers: { "content-type": metrics.contentType } });
  };
}
