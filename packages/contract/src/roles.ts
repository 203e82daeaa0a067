// Free of zod, so the dashboard's islands can check roles without loading it.
export const ROLES = ["admin", "deployer", "viewer"] as const;

export type Role = (typeof ROLES)[number];

/**
 * What a procedure needs of its caller's role. Declared beside each route in the contract; the
 * backend enforces it, the dashboard hides what a role may not use.
 * - `read`: stacks, history, events, scans
 * - `deploy`: run deploys
 * - `scan`: request image scans
 * - `account`: one's own account and API keys
 * - `admin`: people, the Komodo connection, alert settings, deleting stacks, poll-for-updates, the audit
 */
export type Permission = "read" | "deploy" | "scan" | "account" | "admin";

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  admin: ["read", "deploy", "scan", "account", "admin"],
  deployer: ["read", "deploy", "scan", "account"],
  viewer: ["read", "account"],
};

export const rolePermits = (who: Role, permission: Permission) => ROLE_PERMISSIONS[who].includes(permission);

/** What an API key's scope can grant reading: the stack list, the history, image scans, the event stream. */
export const READ_AREAS = ["stacks", "history", "scans", "events"] as const;

export type ReadArea = (typeof READ_AREAS)[number];

/**
 * What a scoped API key's scope must allow for a procedure, declared beside its `permission`: one
 * of its read areas, the deploy action of the procedure's input on its input's stack, or the
 * metrics (which only a scope that names them allows). `orOwnRuns` also admits a key whose scope
 * lacks the read but that may deploy: it then sees only the runs it started itself (a pipeline's key
 * follows its own deploys, whatever its `read` list says).
 */
export type KeyScopeNeed = { read: ReadArea; orOwnRuns?: true } | { deploy: "input" } | { metrics: true };
