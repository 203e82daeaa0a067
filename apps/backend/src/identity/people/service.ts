import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Role } from "@stackgate/contract";
import { and, desc, eq, gt, isNull, ne } from "drizzle-orm";
import type { Actor, AuditService } from "../../audit/service.ts";
import type { Database, Transaction } from "../../db/database.ts";

/** Reads run on the database or inside a transaction. */
type Reader = Pick<Transaction, "select">;

import { account, invitation, session, user } from "../../db/schema.ts";
import type { Clock } from "../../platform/clock.ts";

export const INVITATION_VALID_MS = 7 * 24 * 60 * 60 * 1000;

/** What went wrong with a request about people, for the HTTP layer (http-errors.ts) to answer. */
export class PeopleError extends Error {
  readonly kind: "bad-input" | "not-found" | "conflict" | "gone";
  constructor(kind: PeopleError["kind"], message: string) {
    super(message);
    this.name = "PeopleError";
    this.kind = kind;
  }
}

/**
 * The turn of every transaction that creates a person or may leave fewer active admins, so no two
 * pass their checks at once (a link accepted twice, an email taken twice, the last two admins
 * demoting each other).
 */
export const PEOPLE_TURN = { turn: "people" };

const LAST_ADMIN =
  "is the last active admin: make another person an admin first, or Stackgate would have nobody to manage it";

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

const personColumns = {
  id: user.id,
  name: user.name,
  email: user.email,
  role: user.role,
  disabled: user.disabled,
  createdAt: user.createdAt,
  lastSignInAt: user.lastSignInAt,
  sso: user.roleFromSso,
};

export type Person = {
  id: string;
  name: string;
  email: string;
  role: Role;
  disabled: boolean;
  createdAt: Date;
  lastSignInAt: Date | null;
  sso: boolean;
};

const findPerson = async (db: Reader, id: string): Promise<Person | undefined> =>
  (await db.select(personColumns).from(user).where(eq(user.id, id)))[0];

/**
 * Creates a person, with a password (its hash, from Better Auth's `password.hash`) or without
 * one (single sign-on links its own account), inside the transaction that also uses up an
 * invitation or records the change; the caller checks the email is free. Returns the new person's id.
 */
export async function createPerson(
  tx: Transaction,
  {
    email,
    name,
    role,
    roleFromSso = false,
    passwordHash,
    emailVerified = true,
  }: {
    email: string;
    name: string;
    role: Role;
    roleFromSso?: boolean;
    passwordHash?: string;
    emailVerified?: boolean;
  },
): Promise<string> {
  const id = randomUUID();
  await tx.insert(user).values({ id, email, name, role, roleFromSso, emailVerified });
  if (passwordHash !== undefined) {
    await tx.insert(account).values({
      id: randomUUID(),
      userId: id,
      accountId: id,
      providerId: "credential",
      password: passwordHash,
    });
  }
  return id;
}

/**
 * Whether this person is the only admin who is not disabled: such a person may not be demoted,
 * disabled or deleted (by an admin or by single sign-on), or nobody could manage Stackgate.
 */
export async function isLastActiveAdmin(db: Reader, userId: string): Promise<boolean> {
  const admins = await db
    .select({ id: user.id })
    .from(user)
    .where(and(eq(user.role, "admin"), eq(user.disabled, false)))
    .limit(2);
  return admins.length === 1 && admins[0]?.id === userId;
}

/**
 * The one rule about the last active admin: they may not be demoted, disabled or deleted, by an
 * admin or by single sign-on (PeopleError "conflict"), or nobody could manage Stackgate.
 */
async function keepLastActiveAdmin(tx: Reader, person: { id: string; email: string }) {
  if (await isLastActiveAdmin(tx, person.id))
    throw new PeopleError("conflict", `${person.email} ${LAST_ADMIN}`);
}

/**
 * Sets a person's role; `fromSso` marks it as managed by single sign-on (set at every SSO
 * sign-in; false when an admin sets it here). The last active admin stays one. Records nothing:
 * callers record the change in the same transaction.
 */
export async function setRole(
  tx: Transaction,
  person: { id: string; email: string },
  role: Role,
  { fromSso }: { fromSso: boolean },
) {
  if (role !== "admin") await keepLastActiveAdmin(tx, person);
  await tx
    .update(user)
    .set({ role, roleFromSso: fromSso, updatedAt: new Date() })
    .where(eq(user.id, person.id));
}

/** Why someone's sessions were ended, as the audit records it. */
export type SessionsEndedBecause = "password-changed" | "password-reset" | "disabled";

/**
 * Ends a person's sessions, all of them or all but `keep`, and records it, in the transaction of
 * the change that ends them. Their open event streams end within a second (identity/access-watch.ts).
 */
export async function endSessions(
  tx: Transaction,
  audit: AuditService,
  {
    person,
    by,
    because,
    keep,
  }: {
    person: { id: string; email: string; name: string };
    by: Actor;
    because: SessionsEndedBecause;
    keep?: string;
  },
) {
  const whose = eq(session.userId, person.id);
  const ended = await tx
    .delete(session)
    .where(keep === undefined ? whose : and(whose, ne(session.id, keep)))
    .returning({ id: session.id });
  if (ended.length === 0) return;
  await audit.recordChange(
    {
      by,
      action: "user.sessions-revoked",
      target: person.email,
      detail: { name: person.name, count: ended.length, because },
    },
    tx,
  );
}

/**
 * Disables a person, by an admin or by single sign-on: their sessions end at once, their API keys
 * are refused from their next request, their open streams within a second. The last active admin
 * stays (PeopleError "conflict"). Recorded in `tx`.
 */
export async function disablePerson(
  tx: Transaction,
  audit: AuditService,
  {
    person,
    by,
    detail = {},
  }: { person: { id: string; email: string; name: string }; by: Actor; detail?: Record<string, unknown> },
) {
  await keepLastActiveAdmin(tx, person);
  await tx.update(user).set({ disabled: true, updatedAt: new Date() }).where(eq(user.id, person.id));
  await audit.recordChange(
    { by, action: "user.disabled", target: person.email, detail: { name: person.name, ...detail } },
    tx,
  );
  await endSessions(tx, audit, { person, by, because: "disabled" });
}

/** A person acting on their own account or on others: an actor with an id. */
type Someone = Actor & { id: string };

/**
 * How passwords are hashed and checked: Better Auth's own (its context's `password`), so that its
 * sign-in accepts what is set here.
 */
export interface Passwords {
  hash(password: string): Promise<string>;
  verify(input: { hash: string; password: string }): Promise<boolean>;
}

export type InvitationProblem = "expired" | "used" | "revoked";

export function createPeopleService({
  db,
  passwords,
  audit,
  clock,
  appUrl,
}: {
  db: Database;
  passwords: Passwords;
  audit: AuditService;
  clock: Clock;
  appUrl: string;
}) {
  const now = () => new Date(clock.now());

  const requirePerson = async (id: string) => {
    const found = await findPerson(db, id);
    if (!found) throw new PeopleError("not-found", `No person has the id '${id}'`);
    return found;
  };

  const hasAccount = async (db: Reader, email: string) =>
    (await db.select({ id: user.id }).from(user).where(eq(user.email, email))).length > 0;

  const isPending = () =>
    and(isNull(invitation.acceptedAt), isNull(invitation.revokedAt), gt(invitation.expiresAt, now()));

  const problemOf = (found: typeof invitation.$inferSelect): InvitationProblem | undefined => {
    if (found.acceptedAt) return "used";
    if (found.revokedAt) return "revoked";
    if (found.expiresAt.getTime() <= clock.now()) return "expired";
    return undefined;
  };

  const describeProblem = (problem: InvitationProblem, found: typeof invitation.$inferSelect) =>
    ({
      expired: `this invitation expired on ${found.expiresAt.toISOString()}: ask an admin for a new one`,
      used: "this invitation was already used: sign in instead, or ask an admin for a new one",
      revoked: "this invitation was revoked: ask an admin for a new one",
    })[problem];

  const findInvitation = async (db: Reader, token: string) => {
    const [found] = await db
      .select()
      .from(invitation)
      .where(eq(invitation.tokenHash, hashToken(token)));
    if (!found) throw new PeopleError("not-found", "No invitation has this token: check the link");
    return found;
  };

  /** The signed-in person, as `GET /api/v0/me` answers. */
  const me = async (userId: string) => {
    const { id, name, email, role, sso } = await requirePerson(userId);
    return { id, name, email, role, sso };
  };

  return {
    me,

    async rename(by: Someone, name: string) {
      const before = await requirePerson(by.id);
      await db.transaction(async (tx) => {
        await tx.update(user).set({ name, updatedAt: now() }).where(eq(user.id, by.id));
        await audit.recordChange(
          {
            by,
            action: "user.renamed",
            target: before.email,
            detail: { from: before.name, to: name },
          },
          tx,
        );
      });
      return me(by.id);
    },

    /** Changes the caller's own password and ends their other sessions (this one stays signed in). */
    async changePassword(
      by: Someone,
      {
        sessionId,
        currentPassword,
        newPassword,
      }: { sessionId: string; currentPassword: string; newPassword: string },
    ) {
      const [credential] = await db
        .select({ id: account.id, password: account.password })
        .from(account)
        .where(and(eq(account.userId, by.id), eq(account.providerId, "credential")));
      if (!credential?.password) {
        throw new PeopleError(
          "conflict",
          "This account signs in with single sign-on and has no password: change it at your provider",
        );
      }
      if (!(await passwords.verify({ hash: credential.password, password: currentPassword }))) {
        throw new PeopleError("bad-input", "currentPassword: this is not your current password");
      }
      const hash = await passwords.hash(newPassword);
      const person = await requirePerson(by.id);
      await db.transaction(async (tx) => {
        await tx
          .update(account)
          .set({ password: hash, updatedAt: now() })
          .where(eq(account.id, credential.id));
        await audit.recordChange({ by, action: "user.password-changed", target: person.email }, tx);
        await endSessions(tx, audit, { person, by, because: "password-changed", keep: sessionId });
      });
    },

    list(): Promise<Person[]> {
      return db.select(personColumns).from(user).orderBy(user.name, user.email);
    },

    /**
     * Changes a person's role, or disables or enables them. Disabling ends their sessions at once
     * (their API keys are refused on their next request). The last active admin stays one.
     */
    async update(by: Actor, id: string, change: { role?: Role; disabled?: boolean }): Promise<Person> {
      await db.transaction(async (tx) => {
        const before = await findPerson(tx, id);
        if (!before) throw new PeopleError("not-found", `No person has the id '${id}'`);
        const changes: { action: string; detail: Record<string, unknown> }[] = [];
        if (change.role !== undefined && change.role !== before.role) {
          if (before.sso) {
            throw new PeopleError(
              "conflict",
              `${before.email}'s role is managed by single sign-on: change it at the identity provider`,
            );
          }
          await setRole(tx, before, change.role, { fromSso: false });
          changes.push({ action: "user.role-changed", detail: { from: before.role, to: change.role } });
        }
        for (const { action, detail } of changes) {
          await audit.recordChange(
            { by, action, target: before.email, detail: { name: before.name, ...detail } },
            tx,
          );
        }
        if (change.disabled === true && !before.disabled)
          await disablePerson(tx, audit, { person: before, by });
        if (change.disabled === false && before.disabled) {
          await tx.update(user).set({ disabled: false, updatedAt: now() }).where(eq(user.id, id));
          await audit.recordChange(
            { by, action: "user.enabled", target: before.email, detail: { name: before.name } },
            tx,
          );
        }
      }, PEOPLE_TURN);
      return requirePerson(id);
    },

    /** Deletes a person: their sessions, accounts and API keys go too; the history and the audit keep their name. */
    async remove(by: Actor, id: string) {
      await db.transaction(async (tx) => {
        const before = await findPerson(tx, id);
        if (!before) throw new PeopleError("not-found", `No person has the id '${id}'`);
        await keepLastActiveAdmin(tx, before);
        await tx.delete(user).where(eq(user.id, id));
        await audit.recordChange(
          {
            by,
            action: "user.deleted",
            target: before.email,
            detail: { name: before.name, role: before.role },
          },
          tx,
        );
      }, PEOPLE_TURN);
    },

    /**
     * Invites an email address with a role: a one-time link, valid for 7 days, in this answer only.
     * Only the token's SHA-256 hash is kept.
     */
    async invite(by: Someone, { email, role }: { email: string; role: Role }) {
      const token = randomBytes(32).toString("base64url");
      const id = randomUUID();
      const expiresAt = new Date(clock.now() + INVITATION_VALID_MS);
      const inviter = await requirePerson(by.id);
      await db.transaction(async (tx) => {
        if (await hasAccount(tx, email))
          throw new PeopleError("bad-input", `email: ${email} already has an account`);
        const [pending] = await tx
          .select({ id: invitation.id })
          .from(invitation)
          .where(and(eq(invitation.email, email), isPending()));
        if (pending) {
          throw new PeopleError(
            "bad-input",
            `email: ${email} already has a pending invitation; revoke it first to invite again`,
          );
        }
        await tx.insert(invitation).values({
          id,
          email,
          role,
          tokenHash: hashToken(token),
          invitedById: by.id,
          invitedByName: inviter.name,
          createdAt: now(),
          expiresAt,
        });
        await audit.recordChange({ by, action: "invitation.created", target: email, detail: { role } }, tx);
      });
      return { id, url: `${appUrl}/invite/${token}`, expiresAt };
    },

    /** The invitations not used, revoked or expired yet, newest first. */
    pendingInvitations() {
      return db
        .select({
          id: invitation.id,
          email: invitation.email,
          role: invitation.role,
          createdAt: invitation.createdAt,
          expiresAt: invitation.expiresAt,
          invitedBy: invitation.invitedByName,
        })
        .from(invitation)
        .where(isPending())
        .orderBy(desc(invitation.createdAt), desc(invitation.id));
    },

    async revokeInvitation(by: Actor, id: string) {
      await db.transaction(async (tx) => {
        const [revoked] = await tx
          .update(invitation)
          .set({ revokedAt: now() })
          .where(and(eq(invitation.id, id), isPending()))
          .returning({ email: invitation.email, role: invitation.role });
        if (!revoked) throw new PeopleError("not-found", `No pending invitation has the id '${id}'`);
        await audit.recordChange(
          {
            by,
            action: "invitation.revoked",
            target: revoked.email,
            detail: { role: revoked.role },
          },
          tx,
        );
      });
    },

    /** What an invitation link is for; a link that cannot be used any more is "gone", with the reason. */
    async inspectInvitation(token: string) {
      const found = await findInvitation(db, token);
      const problem = problemOf(found);
      if (problem) {
        const reason = describeProblem(problem, found);
        throw new PeopleError("gone", reason.charAt(0).toUpperCase() + reason.slice(1));
      }
      return { email: found.email, role: found.role, expiresAt: found.expiresAt };
    },

    /**
     * Accepts an invitation: creates the person with the invitation's role, the chosen name and
     * password, and uses the invitation up, in one transaction. Returns the new person; signing
     * them in is the caller's (procedures.ts).
     */
    async acceptInvitation({ token, name, password }: { token: string; name: string; password: string }) {
      const checked = await findInvitation(db, token);
      const early = problemOf(checked);
      if (early) throw new PeopleError("bad-input", `token: ${describeProblem(early, checked)}`);
      const passwordHash = await passwords.hash(password);
      // Checked again inside the transaction: another request may have used the link meanwhile.
      const userId = await db.transaction(async (tx) => {
        const found = await findInvitation(tx, token);
        const problem = problemOf(found);
        if (problem) throw new PeopleError("bad-input", `token: ${describeProblem(problem, found)}`);
        if (await hasAccount(tx, found.email)) {
          throw new PeopleError("bad-input", `token: ${found.email} already has an account: sign in instead`);
        }
        const id = await createPerson(tx, { email: found.email, name, role: found.role, passwordHash });
        await tx.update(invitation).set({ acceptedAt: now() }).where(eq(invitation.id, found.id));
        const newcomer: Actor = { id, name, email: found.email };
        await audit.recordChange(
          { by: newcomer, action: "invitation.accepted", target: found.email, detail: { role: found.role } },
          tx,
        );
        return id;
      }, PEOPLE_TURN);
      return requirePerson(userId);
    },
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;
