import { randomUUID } from "node:crypto";
import { type Role, withoutUnsafeCharacters } from "@stackgate/contract";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { AuditService } from "../../audit/service.ts";
import type { Database, Transaction } from "../../db/database.ts";
import { account, invitation, user } from "../../db/schema.ts";
import type { Clock } from "../../platform/clock.ts";
import type { SingleSignOnConfig } from "../../platform/config.ts";
import {
  createPerson,
  disablePerson,
  hashToken,
  PEOPLE_TURN,
  PeopleError,
  setRole,
} from "../people/service.ts";
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
  const byProvider = { id: null, name: `single sign-on (${config.name})` };
  const isLastAdminConflict = (error: unknown) => error instanceof PeopleError && error.kind === "conflict";
  /** Sets the role; false when that would demote the last active admin, who keeps theirs. */
  const roleSet = async (
    tx: Transaction,
    person: { id: string; email: string },
    role: Role,
    options: { fromSso: boolean },
  ) => {
    try {
      await setRole(tx, person, role, options);
      return true;
    } catch (error) {
      if (isLastAdminConflict(error)) return false;
      throw error;
    }
  };
  /** Disables the person; the last active admin stays enabled, which the returned note says. */
  const disableUnlessLastAdmin = async (
    tx: Transaction,
    person: { id: string; email: string; name: string },
    reason: string,
  ) => {
    try {
      await disablePerson(tx, audit, { person, by: byProvider, detail: { via: "sso", reason } });
      return "; the person is disabled";
    } catch (error) {
      if (isLastAdminConflict(error)) return "; the last active admin stays enabled";
      throw error;
    }
  };

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
    const refuse = async (refusal: SignInRefusal, detail: string): Promise<PersonDecision> => {
      const who = person ?? undefined;
      await audit.recordChange(
        {
          by: who
            ? { id: who.id, name: who.name, email: who.email }
            : { id: null, name: email ?? sub, email },
          action: "user.sso-refused",
          target: who?.email ?? email ?? sub,
          detail: { reason: refusal, detail },
        },
        tx,
      );
      return { kind: "refused", refusal, detail };
    };
    if (person && !linked && !emailVerified) {
      return refuse(
        "unverified-email",
        "the provider does not say the email is verified, and a person with that email exists",
      );
    }
    if (person?.disabled) return refuse("disabled", "the person is disabled");

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
      if (invitationToken && !person && !invited) {
        return refuse(
          "invitation-invalid",
          "the invitation expired, was used or was revoked, and no claim value maps to a role",
        );
      }
      const detail = `no value of the ${config.roleClaim} claim maps to a role, and OIDC_DEFAULT_ROLE is refuse`;
      // The provider no longer grants this person anything: their sessions, keys and streams stop
      // now, not at their next sign-in. An admin may enable them again.
      const disabled = person ? await disableUnlessLastAdmin(tx, person, detail) : "";
      return refuse("no-role", detail + disabled);
    }

    const created = !person;
    if (!person) {
      if (!email) return refuse("no-email", "the provider sent no email");
      // The provider's name, cleaned of what a name here may not hold (a person could not type it in).
      const claimed = stringClaim(claims, "name") ?? stringClaim(claims, "preferred_username") ?? "";
      const name = withoutUnsafeCharacters(claimed).trim().slice(0, 100).toWellFormed() || email;
      const id = await createPerson(tx, {
        email,
        name,
        role,
        roleFromSso: mappedRole !== null,
        emailVerified,
      });
      [person] = await tx.select().from(user).where(eq(user.id, id));
      if (!person) throw new Error("the new person was not stored");
      const newcomer = { id, name, email };
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
    const roleChanged = role !== person.role || person.roleFromSso !== (mappedRole !== null);
    const kept = roleChanged && !(await roleSet(tx, person, role, { fromSso: mappedRole !== null }));
    if (kept) {
      applied = person.role;
      warnings.push(
        `${person.email} is the last active admin and keeps the admin role although ${config.roleClaim} maps to ${role}`,
      );
    } else if (roleChanged) {
      if (!created && role !== person.role) {
        await audit.recordChange(
          {
            by: { id: person.id, name: person.name, email: person.email },
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
