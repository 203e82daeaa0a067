import type { Role } from "@stackgate/contract";
import type { SingleSignOnConfig } from "../../platform/config.ts";

/** The claim at a dotted path (`realm_access.roles`), as a list of strings; a lone string counts as one. */
export function claimValues(claims: Record<string, unknown>, path: string): string[] {
  let value: unknown = claims;
  for (const part of path.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
    value = (value as Record<string, unknown>)[part];
  }
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  return [];
}

const ROLES_STRONGEST_FIRST: readonly Role[] = ["admin", "deployer", "viewer"];

/** The strongest role any of the claim's values maps to, or null when none does. */
export function roleFromClaims(claims: Record<string, unknown>, config: SingleSignOnConfig): Role | null {
  const values = new Set(claimValues(claims, config.roleClaim));
  return (
    ROLES_STRONGEST_FIRST.find((role) => config.roleValues[role].some((value) => values.has(value))) ?? null
  );
}
