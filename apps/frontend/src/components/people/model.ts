import type { invitation, person, Role } from "@stackgate/contract";
import type { z } from "zod";
import type { Translate } from "../../lib/i18n.ts";

export type Person = z.infer<typeof person>;
export type Invitation = z.infer<typeof invitation>;

export const ROLES: readonly Role[] = ["admin", "deployer", "viewer"];

export const roleName = (role: Role, t: Translate) => t(`role.${role}`);
