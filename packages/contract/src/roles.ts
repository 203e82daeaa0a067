import { z } from "zod";

export const role = z
  .enum(["admin", "deployer", "viewer"], { error: "role must be one of admin, deployer, viewer" })
  .meta({
    description:
      "`admin`: everything, including people and settings; `deployer`: read, deploy, request scans and " +
      "manage their own API keys; `viewer`: read only (and their own read-only API keys)",
    example: "deployer",
  });

export type Role = z.infer<typeof role>;

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
