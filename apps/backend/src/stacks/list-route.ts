import { contract } from "@stackgate/contract";
import type { MiddlewareHandler } from "hono";
import { admitCaller } from "../identity/access.ts";
import type { Authenticate } from "../identity/authenticate.ts";
import type { StackService } from "./service.ts";

const { route, meta } = contract.stacks.list["~orpc"];
export const STACK_LIST_PATH = route.path as string;

/**
 * `GET /api/v0/stacks` without oRPC's layers: the same access check, the same answer written as
 * one string. oRPC would make a whole web Request of the light one, copy the 200 stacks once more
 * to check them against the contract (they are built from a checked answer) and hand them to a
 * generic serializer; each listing's garbage counts, as it is measured against Komodo's own time
 * (bench/RESULTS.md, issue 13). The dashboard's `/rpc` listing stays on oRPC.
 */
export function stackListRoute({
  stacks,
  authenticate,
}: {
  stacks: StackService;
  authenticate: Authenticate;
}): MiddlewareHandler {
  return async (c) => {
    const caller = await admitCaller(authenticate, c.req.raw.headers, { ...meta, name: "stacks.list" });
    const listed = await stacks.list(caller.stacks);
    return c.body(JSON.stringify({ stacks: listed }), 200, { "content-type": "application/json" });
  };
}
