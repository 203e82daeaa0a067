import { implement } from "@orpc/server";
import { contract } from "@stackgate/contract";
import { admitCaller } from "./identity/access.ts";
import type { Authenticate } from "./identity/authenticate.ts";
import type { Caller } from "./identity/caller.ts";

export interface RequestContext {
  headers: Headers;
  /** Headers added to the answer (oRPC's response-headers plugin), e.g. the session cookie. */
  resHeaders?: Headers;
}

/**
 * What a public procedure's handler finds as its caller: nobody. Reading it is a bug, and says so
 * (only procedures the contract declares `public` get it).
 */
const nobody = new Proxy({} as Caller, {
  get(_target, property) {
    // Symbols and `then` are what generic code (inspection, promise resolution) asks of any object.
    if (typeof property === "symbol" || property === "then") return undefined;
    throw new Error(`A public procedure has no caller (it read caller.${property})`);
  },
});

/**
 * The implementer every feature builds its procedures from. One middleware admits the caller by
 * the rule each procedure declares in the contract (`admitCaller`: access, permission, key scope)
 * and hands handlers the caller, with the stacks it may see. It also gives procedures
 * `resHeaders`, for the one that answers with a session cookie.
 */
export function createImplementer(authenticate: Authenticate) {
  return implement(contract)
    .$context<RequestContext>()
    .use(async ({ context, procedure, path, next }, input) => {
      const rule = procedure["~orpc"].meta;
      if (rule.access === "public") return next({ context: { caller: nobody } });
      const caller = await admitCaller(
        authenticate,
        context.headers,
        { ...rule, name: path.join(".") },
        input,
      );
      return next({ context: { caller } });
    });
}

export type Implementer = ReturnType<typeof createImplementer>;
