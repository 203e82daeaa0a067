import { ORPCError } from "@orpc/server";
import type { Implementer } from "../../implementer.ts";
import { actorOf, type Caller } from "../caller.ts";
import type { Auth } from "../sessions/better-auth.ts";
import type { PeopleService } from "./service.ts";

const requireSession = (caller: Caller) => {
  // The contract makes these procedures session-only; this narrows the type.
  if (caller.via !== "session")
    throw new ORPCError("FORBIDDEN", { message: "This endpoint needs a signed-in session" });
  return caller;
};

/** The caller as the actor of a change to their own account or made in their name. */
const someone = (caller: Caller) => ({ ...actorOf(caller), id: caller.userId });

export function meProcedures(os: Implementer, { people }: { people: PeopleService }) {
  return {
    get: os.me.get.handler(({ context }) => people.me(context.caller.userId)),
    update: os.me.update.handler(({ context, input }) => people.rename(someone(context.caller), input.name)),
    changePassword: os.me.changePassword.handler(async ({ context, input }) => {
      const { sessionId } = requireSession(context.caller);
      await people.changePassword(someone(context.caller), { sessionId, ...input });
      return { changed: true as const };
    }),
  };
}

export function userProcedures(os: Implementer, { people }: { people: PeopleService }) {
  return {
    list: os.users.list.handler(async () => ({ users: await people.list() })),
    update: os.users.update.handler(({ context, input: { id, ...change } }) =>
      people.update(actorOf(context.caller), id, change),
    ),
    remove: os.users.remove.handler(async ({ context, input }) => {
      await people.remove(actorOf(context.caller), input.id);
      return { deleted: true as const };
    }),
    invite: os.users.invite.handler(({ context, input }) => people.invite(someone(context.caller), input)),
    invitations: os.users.invitations.handler(async () => ({
      invitations: await people.pendingInvitations(),
    })),
    revokeInvitation: os.users.revokeInvitation.handler(async ({ context, input }) => {
      await people.revokeInvitation(actorOf(context.caller), input.id);
      return { revoked: true as const };
    }),
  };
}

/**
 * The two procedures an invitation link uses, without a session. Accepting signs the new person
 * in exactly as the sign-in form does (Better Auth's email sign-in, its hooks and its cookie).
 */
export function invitationProcedures(
  os: Implementer,
  { people, auth, passwordSignIn }: { people: PeopleService; auth: Auth; passwordSignIn: boolean },
) {
  return {
    inspect: os.invitations.inspect.handler(({ input }) => people.inspectInvitation(input.token)),
    accept: os.invitations.accept.handler(async ({ context, input }) => {
      // Refused before anything is written: an account nobody could sign in to is no account.
      if (!passwordSignIn)
        throw new ORPCError("FORBIDDEN", {
          message:
            "Password sign-in is turned off here (PASSWORD_SIGN_IN=false): accept this invitation with single sign-on",
        });
      const person = await people.acceptInvitation(input);
      // The account exists from here on: should the sign-in itself be refused (too many failed
      // sign-ins from this address), that refusal is the answer and the person signs in later.
      const signedIn = await auth.api.signInEmail({
        body: { email: person.email, password: input.password },
        headers: context.headers,
        returnHeaders: true,
      });
      for (const cookie of signedIn.headers.getSetCookie()) context.resHeaders?.append("set-cookie", cookie);
      return people.me(person.id);
    }),
  };
}
