import { ORPCError } from "@orpc/server";
import { type AccessRule, type KeyScopeNeed, type Permission, rolePermits } from "@stackgate/contract";
import {
  allowsAction,
  allowsMetrics,
  allowsRead,
  allowsSomeDeploy,
  describeScope,
  type KeyScope,
  runsVisibleIn,
} from "./apikeys/scope.ts";
import { type Authenticate, refusalOf } from "./authenticate.ts";
import type { Caller } from "./caller.ts";

/** What each permission lets a role do, in the words of a refusal ("… which may not <this>"). */
const permissionVerbs: Record<Permission, string> = {
  read: "read stacks, history, events or scans",
  deploy: "deploy",
  scan: "request scans",
  account: "manage an account",
  admin: "manage people or settings (admins only)",
};

type DeployAction = NonNullable<KeyScope["actions"]>[number];
const DEPLOY_ACTIONS = new Set<string>(["pull", "redeploy", "pull-redeploy"] satisfies DeployAction[]);

const outsideScope = (what: string, scope: KeyScope | null) =>
  new ORPCError("FORBIDDEN", {
    message: `This API key may not ${what}. It may: ${describeScope(scope)}`,
  });

/** The key as its scope admits it to the procedure (narrowed to its own runs by `orOwnRuns`), or a 403. */
function checkScope(
  need: KeyScopeNeed | undefined,
  caller: Caller & { via: "apiKey" },
  name: string,
  input: unknown,
): Caller {
  const { scope } = caller;
  if (!need) throw outsideScope(`call ${name}`, scope);
  if ("read" in need) {
    if (allowsRead(scope, need.read)) return caller;
    if (need.orOwnRuns && allowsSomeDeploy(scope) && rolePermits(caller.role, "deploy"))
      return { ...caller, runs: runsVisibleIn(caller.stacks, caller.keyId) };
    throw outsideScope(`read ${need.read}`, scope);
  }
  if ("metrics" in need) {
    if (!allowsMetrics(scope)) throw outsideScope("read the metrics (its scope must include metrics)", scope);
    return caller;
  }
  const { stack, action } = (input ?? {}) as { stack?: unknown; action?: unknown };
  // Malformed input is left to validation, which answers 400.
  if (typeof stack !== "string" || typeof action !== "string" || !DEPLOY_ACTIONS.has(action)) return caller;
  if (!allowsAction(scope, action as DeployAction) || !caller.stacks.admits(stack))
    throw outsideScope(`${action} '${stack}'`, scope);
  return caller;
}

function refuseRole(caller: Caller, permission: Permission) {
  const verb = permissionVerbs[permission];
  const message =
    caller.via === "session"
      ? `Your role is ${caller.role}, which may not ${verb}: ask an admin`
      : `This API key acts with its owner's role, ${caller.role}, which may not ${verb}: ask an admin`;
  return new ORPCError("FORBIDDEN", { message });
}

/**
 * The one access check of every procedure and route that has a caller: the caller the request
 * authenticates as, if the rule its contract declares admits them — the access (`keyOrSession`,
 * `sessionOnly`, `keyOnly`), the permission their role must have (for an API key: its owner's
 * role now) and, for a scoped key, what its scope must allow (`keyScope`; a key admitted by
 * `orOwnRuns` comes back with `runs` narrowed to its own). Otherwise the ORPCError to answer. A rule
 * that declares nothing is refused.
 */
export async function admitCaller(
  authenticate: Authenticate,
  headers: Headers,
  rule: AccessRule & { name: string },
  input?: unknown,
): Promise<Caller> {
  const authentication = await authenticate(headers);
  if (authentication.kind !== "caller") {
    throw new ORPCError("UNAUTHORIZED", { message: refusalOf(authentication) });
  }
  const { caller } = authentication;
  const { access, permission, keyScope, name } = rule;
  if (access === "sessionOnly" && caller.via !== "session") {
    throw new ORPCError("FORBIDDEN", {
      message: "This endpoint needs a signed-in session; API keys may not use it",
    });
  }
  if (access === "keyOnly" && caller.via !== "apiKey") {
    throw new ORPCError("FORBIDDEN", {
      message:
        "This endpoint needs an API key (x-api-key, or Authorization: Bearer); a session may not use it",
    });
  }
  if (access !== "sessionOnly" && access !== "keyOrSession" && access !== "keyOnly") {
    throw new ORPCError("FORBIDDEN", { message: "This endpoint declares no access rule" });
  }
  if (permission === undefined) {
    throw new ORPCError("FORBIDDEN", { message: "This endpoint declares no permission" });
  }
  if (!rolePermits(caller.role, permission)) throw refuseRole(caller, permission);
  return caller.via === "apiKey" ? checkScope(keyScope, caller, name, input) : caller;
}
