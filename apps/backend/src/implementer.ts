import { implement, ORPCError } from "@orpc/server";
import { contract, type Permission, rolePermits } from "@stackgate/contract";
import {
  allowsAction,
  allowsRead,
  describeScope,
  type KeyScope,
  type ReadArea,
  stackFilter,
} from "./identity/apikeys/scope.ts";
import { type Authenticate, type Caller, refusalOf } from "./identity/caller.ts";

export interface RequestContext {
  headers: Headers;
  /** Headers added to the answer (oRPC's response-headers plugin), e.g. the session cookie. */
  resHeaders?: Headers;
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

/** What each permission lets a role do, in the words of a refusal ("… which may not <this>"). */
const permissionVerbs: Record<Permission, string> = {
  read: "read stacks, history, events or scans",
  deploy: "deploy",
  scan: "request scans",
  account: "manage an account",
  admin: "manage people or settings (admins only)",
};

function refuseRole(caller: Caller, permission: Permission) {
  const verb = permissionVerbs[permission];
  const message =
    caller.via === "session"
      ? `Your role is ${caller.role}, which may not ${verb}: ask an admin`
      : `This API key acts with its owner's role, ${caller.role}, which may not ${verb}: ask an admin`;
  return new ORPCError("FORBIDDEN", { message });
}

/**
 * Who may call a procedure: the caller the request authenticates as, if the procedure's declared
 * access admits it, the caller's role has the permission it declares (for an API key: its owner's
 * role now) and, for a scoped key, its scope allows it; otherwise the ORPCError to answer. A
 * procedure that declares no access rule or no permission is refused. Public procedures are not
 * for this function: they have no caller.
 */
export async function admitCaller(
  authenticate: Authenticate,
  headers: Headers,
  procedure: {
    access: unknown;
    permission: Permission | undefined;
    path: readonly string[];
    input?: unknown;
  },
): Promise<Caller> {
  const authentication = await authenticate(headers);
  if (authentication.kind !== "caller") {
    throw new ORPCError("UNAUTHORIZED", { message: refusalOf(authentication) });
  }
  const { caller } = authentication;
  const { access, permission } = procedure;
  if (access === "sessionOnly" && caller.via !== "session") {
    throw new ORPCError("FORBIDDEN", {
      message: "This endpoint needs a signed-in session; API keys may not use it",
    });
  }
  if (access !== "sessionOnly" && access !== "keyOrSession") {
    throw new ORPCError("FORBIDDEN", { message: "This endpoint declares no access rule" });
  }
  if (permission === undefined) {
    throw new ORPCError("FORBIDDEN", { message: "This endpoint declares no permission" });
  }
  if (!rolePermits(caller.role, permission)) throw refuseRole(caller, permission);
  if (caller.via === "apiKey" && caller.scope) checkScope(procedure.path, caller.scope, procedure.input);
  return caller;
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
 * The implementer every feature builds its procedures from. One middleware enforces the access
 * and permission each procedure declares in the contract, and a scoped key's scope (`admitCaller`).
 * It also gives procedures `resHeaders`, for the one that answers with a session cookie.
 */
export function createImplementer(authenticate: Authenticate) {
  return implement(contract)
    .$context<RequestContext>()
    .use(async ({ context, procedure, path, next }, input) => {
      const { access, permission } = procedure["~orpc"].meta;
      if (access === "public") return next({ context: { caller: nobody } });
      const caller = await admitCaller(authenticate, context.headers, { access, permission, path, input });
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
