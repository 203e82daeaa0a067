import { implement, ORPCError } from "@orpc/server";
import { contract } from "@stackgate/contract";
import type { Authenticate, Caller } from "./caller.ts";

export interface RequestContext {
  headers: Headers;
}

/**
 * The implementer every feature builds its procedures from. One middleware enforces the
 * access each procedure declares in the contract; a procedure that declares none is refused.
 */
export function createImplementer(authenticate: Authenticate) {
  return implement(contract)
    .$context<RequestContext>()
    .use(async ({ context, procedure, next }) => {
      const access = procedure["~orpc"].meta.access;
      const authentication = await authenticate(context.headers);
      if (authentication.kind === "invalid-key") {
        throw new ORPCError("UNAUTHORIZED", {
          message: "The API key is not valid: it is unknown or was revoked",
        });
      }
      if (authentication.kind === "anonymous") {
        throw new ORPCError("UNAUTHORIZED", {
          message: "Sign in, or send a valid API key in the x-api-key header",
        });
      }
      const { caller } = authentication;
      if (access === "sessionOnly" && caller.via !== "session") {
        throw new ORPCError("FORBIDDEN", {
          message: "This endpoint needs a signed-in session; API keys may not use it",
        });
      }
      if (access !== "sessionOnly" && access !== "keyOrSession") {
        throw new ORPCError("FORBIDDEN", { message: "This endpoint declares no access rule" });
      }
      return next({ context: { caller: caller as Caller } });
    });
}

export type Implementer = ReturnType<typeof createImplementer>;
