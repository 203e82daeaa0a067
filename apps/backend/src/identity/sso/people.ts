import { randomUUID } from "node:crypto";
import type { Role } from "@stackgate/contract";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { AuditService } from "../../audit/service.ts";
import type { Database } from "../../db/database.ts";
import { account, invitation, user } from "../../db/schema.ts";
import type { Clock } from "../../platform/clock.ts";
import type { SingleSignOnConfig } from "../../platform/config.ts";
import { createPerson, hashToken, isLastActiveAdmin, PEOPLE_TURN, setRole } from "../people/service.ts";
import { roleFromClaims } from "./roles.ts";

/** Better Auth's account row of a person who signs in with the provider: `accountId` is the `sub`. */
export const SSO_PROVIDER_ID = "oidc";

/** Why the provider's answer does not sign anyone in; each has its own explanation on the sign-in page. */
export type SignInRefusal = "no-role" | "unverified-email" | "disabled" | "no-email" | "invitation-invalid";

export type PersonDecision =
  | { kind: "person"; userId: string; role: Role; roleFromSso: boolean; created: boolean; warnings: string[] }
  | { kind: "refused"; refusal: SignInRefusal; detail: string };

const stringClaim = (claims: Record<string, unknown>, name: string) => {
  const value = claims[name];
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
};

/**
 * Who a verified sign-in at the provider is in Stackgate, and with what role; every write (a new
 * person, the link of provider and `sub`, the role, a used invitation) happens in one transaction.
 *
 * - A person already linked to this `sub` is that person.
 * - Otherwise a person with the same email is linked only when the provider says the email is
 *   verified (`email_verified: true`); an unverified email never takes over an account.
 * - Otherwise a new person is made.
 * The role is the claim's, applied again at every sign-in; without a match, a new person's
 * invitation decides, then OIDC_DEFAULT_ROLE; with none of them the sign-in is refused. The last
 * active admin keeps the admin role (as an admin's change would be refused), with a warning.
 * New people, used invitations and changed roles are recorded in the audit log.
 */
export async function decidePerson({
  db,
  audit,
  config,
  clock,
  claims,
  invitationToken,
}: {
  db: Database;
  audit: AuditService;
  config: SingleSignOnConfig;
  clock: Clock;
  claims: Record<string, unknown>;
  invitationToken: string | undefined;
}): Promise<PersonDecision> {
  const sub = stringClaim(claims, "sub") ?? "";
  const email = stringClaim(claims, "email")?.toLowerCase();
  const emailVerified = claims.email_verified === true;
  const mappedRole = roleFromClaims(claims, config);
  const now = new Date(clock.now());
  const warnings: string[] = [];

  return db.transaction(async (tx): Promise<PersonDecision> => {
    const [linked] = await tx
      .select({ userId: account.userId })
      .from(account)
      .where(and(eq(account.providerId, SSO_PROVIDER_ID), eq(account.accountId, sub)));
    let [person] = linked
      ? await tx.select().from(user).where(eq(user.id, linked.userId))
      : email
        ? await tx.select().from(user).where(sql`lower(${user.email}) = ${email}`)
        : [];
    if (person && !linked && !emailVerified) {
      return {
        kind: "refused",
        refusal: "unverified-email",
        detail: "the provider does not say the email is verified, and a person with that email exists",
      } as const;
    }
    if (person?.disabled)
      return { kind: "refused", refusal: "disabled", detail: "the person is disabled" } as const;

    const [invited] =
      !person && invitationToken
        ? await tx
            .select()
            .from(invitation)
            .where(
              and(
                eq(invitation.tokenHash, hashToken(invitationToken)),
                isNull(invitation.acceptedAt),
                isNull(invitation.revokedAt),
                gt(invitation.expiresAt, now),
              ),
            )
        : [];
    const role = mappedRole ?? invited?.role ?? config.defaultRole;
    if (!role) {
      return invitationToken && !person && !invited
        ? ({
            kind: "refused",
            refusal: "invitation-invalid",
            detail: "the invitation expired, was used or was revoked, and no claim value maps to a role",
          } as const)
        : ({
            kind: "refused",
            refusal: "no-role",
            detail: `no value of the ${config.roleClaim} claim maps to a role, and OIDC_DEFAULT_ROLE is refuse`,
          } as const);
    }

    const created = !person;
    if (!person) {
      if (!email)
        return { kind: "refused", refusal: "no-email", detail: "the provider sent no email" } as const;
      const name = (stringClaim(claims, "name") ?? stringClaim(claims, "preferred_username") ?? email).slice(
        0,
        64,
      );
      const id = await createPerson(tx, {
        email,
        name,
        role,
        roleFromSso: mappedRole !== null,
        emailVerified,
      });
      [person] = await tx.select().from(user).where(eq(user.id, id));
      if (!person) throw new Error("the new person was not stored");
      const newcomer = { id, name };
      await audit.recordChange(
        {
          by: newcomer,
          action: "user.joined-with-sso",
          target: email,
          detail: { role, roleFromSso: mappedRole !== null },
        },
        tx,
      );
      if (invited) {
        await tx.update(invitation).set({ acceptedAt: now }).where(eq(invitation.id, invited.id));
        await audit.recordChange(
          {
            by: newcomer,
            action: "invitation.accepted",
            target: invited.email,
            detail: { role: invited.role, via: "sso" },
          },
          tx,
        );
      }
    }
    if (!linked) {
      await tx.insert(account).values({
        id: randomUUID(),
        accountId: sub,
        providerId: SSO_PROVIDER_ID,
        userId: person.id,
        createdAt: now,
        updatedAt: now,
      });
    }
    let applied = role;
    if (role !== person.role && person.role === "admin" && (await isLastActiveAdmin(tx, person.id))) {
      applied = "admin";
      warnings.push(
        `${person.email} is the last active admin and keeps the admin role although ${config.roleClaim} maps to ${role}`,
      );
    } else if (role !== person.role || person.roleFromSso !== (mappedRole !== null)) {
      await setRole(tx, person.id, role, { fromSso: mappedRole !== null });
      if (!created && role !== person.role) {
        await audit.recordChange(
          {
            by: { id: person.id, name: person.name },
            action: "user.role-changed",
            target: person.email,
            detail: { from: person.role, to: role, via: "sso" },
          },
          tx,
        );
      }
    }
    return {
      kind: "person",
      userId: person.id,
      role: applied,
      roleFromSso: mappedRole !== null,
      created,
      warnings,
    } as const;
  }, PEOPLE_TURN);
}
