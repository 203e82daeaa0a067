import { type Permission, type Role, rolePermits } from "@stackgate/contract/roles.ts";
import { createContext, createElement, type ReactNode, useContext } from "react";

const RoleContext = createContext<Role | null>(null);

/**
 * Every island root that shows role-limited controls wraps its tree in this (AppProviders does),
 * passing the signed-in person's role from Astro.locals.user, the way `lang` reaches islands. A prop
 * rather than a request to /me: the first (server) render must already leave out what the role may
 * not use.
 */
export function RoleProvider({ role, children }: { role: Role; children: ReactNode }) {
  return createElement(RoleContext.Provider, { value: role }, children);
}

export function useRole(): Role {
  const role = useContext(RoleContext);
  if (!role)
    throw new Error("useRole/useCan used outside <RoleProvider>: pass `role` to the island's AppProviders");
  return role;
}

/** Whether the signed-in person's role allows `permission`; hide the controls it does not. */
export function useCan(permission: Permission): boolean {
  return rolePermits(useRole(), permission);
}
