import { implement, ORPCError } from "@orpc/server";
import { contract } from "@stackgate/contract";
import {
  allowsAction,
  allowsRead,
  describeScope,
  type KeyScope,
  type ReadArea,
  stackFilter,
} from "./apikeys/scope.ts";
import { type Authenticate, type Caller, refusalOf } from "./auth/caller.ts";

export interface RequestContext {
  headers: Headers;
}

/**
 * What a scoped API key needs for each procedure an API key may call: a deploy checks the
 * stack and action of its input, the others one read area. A procedure a key may call that is
 * missing here is refused to every scoped key (the scoped-keys test checks none is missing).
 */
export const keyCapabilities: Record<string, { deploy: true } | { read: ReadArea }> = {
  "stacks.list": { read: "stacks" },
  "deploy.run": { deploy: true },
  "deploy.events": { read: "events" },
  "deploy.getRun": { read: "history" },
  "history.list": { read: "history" },
  "history.overview": { read: "history" },
  "scans.images": { read: "scans" },
  "scans.image": { read: "scans" },
  "scans.scan": { read: "scans" },
};

const outsideScope = (what: string, scope: KeyScope) =>
  new ORPCError("FORBIDDEN", {
    message: `This API key may not ${what}. It may: ${describeScope(scope)}`,
  });

function checkScope(path: readonly string[], scope: KeyScope, input: unknown) {
  const capability = keyCapabilities[path.join(".")];
  if (!capability) throw outsideScope(`call ${path.join(".")}`, scope);
  if ("read" in capability) {
    if (!allowsRead(scope, capability.read)) throw outsideScope(`read ${capability.read}`, scope);
    return;
  }
  const { stack, action } = (input ?? {}) as { stack?: unknown; action?: unknown };
  // Malformed input is left to validation, which answers 400.
  if (typeof stack !== "string" || (action !== "pull" && action !== "redeploy" && action !== "pull-redeploy"))
    return;
  if (!allowsAction(scope, action) || !(stackFilter(scope)?.(stack) ?? true))
    throw outsideScope(`${action} '${stack}'`, scope);
}

/**
 * Who may call a procedure: the caller the request authenticates as, if the procedure's declared
 * access admits it and, for a scoped key, its scope does; otherwise the ORPCError to answer. A
 * procedure that declares no access rule is refused.
 */
export async function admitCaller(
  authenticate: Authenticate,
  headers: Headers,
  procedure: { access: unknown; path: readonly string[]; input?: unknown },
): Promise<Caller> {
  const authentication = await authenticate(headers);
  if (authentication.kind !== "caller") {
    throw new ORPCError("UNAUTHORIZED", { message: refusalOf(authentication) });
  }
  const { caller } = authentication;
  const { access } = procedure;
  if (access === "sessionOnly" && caller.via !== "session") {
    throw new ORPCError("FORBIDDEN", {
      message: "This endpoint needs a signed-in session; API keys may not use it",
    });
  }
  if (access !== "sessionOnly" && access !== "keyOrSession") {
    throw new ORPCError("FORBIDDEN", { message: "This endpoint declares no access rule" });
  }
  if (caller.via === "apiKey" && caller.scope) checkScope(procedure.path, caller.scope, procedure.input);
  return caller;
}

/**
 * The implementer every feature builds its procedures from. One middleware enforces the
 * access each procedure declares in the contract, and a scoped key's scope (`admitCaller`).
 */
export function createImplementer(authenticate: Authenticate) {
  return implement(contract)
    .$context<RequestContext>()
    .use(async ({ context, procedure, path, next }, input) => {
      const access = procedure["~orpc"].meta.access;
      const caller = await admitCaller(authenticate, context.headers, { access, path, input });
      return next({ context: { caller } });
    });
}

export type Implementer = ReturnType<typeof createImplementer>;

/** The stacks a caller may see; undefined: every stack (people, and keys not limited to some stacks). */
export const visibleStacks = (caller: Caller) =>
  caller.via === "apiKey" ? stackFilter(caller.scope) : undefined;

/** The same as stack patterns (for SQL); undefined: every stack. */
export const visibleStackPatterns = (caller: Caller) =>
  caller.via === "apiKey" ? (caller.scope?.stacks ?? undefined) : undefined;
