import { createORPCClient } from "@orpc/client";
import { RPCLink } from "@orpc/client/fetch";
import type { ContractRouterClient } from "@orpc/contract";
import { createTanstackQueryUtils } from "@orpc/tanstack-query";
import type { contract } from "@stackgate/contract";
import { signInPathFor } from "./redirects.ts";

export type ApiClient = ContractRouterClient<typeof contract>;

/**
 * The typed client for the backend's oRPC router, through the gateway (same origin, so the session
 * cookie goes along). The URL is resolved per call: this module is also evaluated during server
 * rendering of islands, where there is no `location` (and no calls are made).
 */
const link = new RPCLink({
  url: () => `${window.location.origin}/rpc`,
  fetch: async (request, init) => {
    // The live event stream never ends: at low priority it is not one of the page's critical requests.
    const priority =
      new URL(request.url).pathname === "/rpc/deploy/events" ? { priority: "low" as const } : {};
    const response = await fetch(request, { ...init, ...priority });
    if (response.status === 401) returnToSignIn();
    return response;
  },
});

/**
 * The session expired while the page was open: back to sign-in, and to this page afterwards.
 * Every call from the dashboard goes through the link, so no island has to handle this itself.
 */
let returningToSignIn = false;
function returnToSignIn() {
  // Several calls may meet the 401 at once (a click, a refetch, the event stream): navigate once, or
  // each later navigation would abort the one before it.
  if (returningToSignIn) return;
  returningToSignIn = true;
  // A page restored from the back/forward cache may meet a 401 again and must be able to leave again.
  window.addEventListener(
    "pageshow",
    () => {
      returningToSignIn = false;
    },
    { once: true },
  );
  window.location.assign(signInPathFor(`${window.location.pathname}${window.location.search}`));
}

export const api: ApiClient = createORPCClient(link);

/** TanStack Query helpers: `useQuery(orpc.stacks.list.queryOptions())`, `orpc.stacks.key()`, … */
export const orpc = createTanstackQueryUtils(api);
