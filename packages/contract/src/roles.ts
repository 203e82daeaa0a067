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
