import type { Role } from "@stackgate/contract";
import { EVERY_STACK, runsVisibleIn, visibilityOf } from "./apikeys/scope.ts";
import type { ApiKeyService } from "./apikeys/service.ts";
import type { Caller } from "./caller.ts";
import type { Auth } from "./sessions/better-auth.ts";

export type Authentication =
  | { kind: "caller"; caller: Caller }
  | { kind: "invalid-key" }
  | { kind: "expired-key"; expiresAt: Date }
  | { kind: "disabled-owner" }
  | { kind: "disabled-person" }
  | { kind: "anonymous" };

/**
 * The specification's resolution order: a present `x-api-key` is the only credential
 * considered (an invalid one never falls back to the cookie); otherwise the session.
 */
export function createAuthenticator({ auth, apiKeys }: { auth: Auth; apiKeys: ApiKeyService }) {
  return async function authenticate(headers: Headers): Promise<Authentication> {
    const key = headers.get("x-api-key");
    if (key !== null) {
      const check = await apiKeys.verify(key.trim());
      if (!check) return { kind: "invalid-key" };
      if (check.kind === "expired") return { kind: "expired-key", expiresAt: check.expiresAt };
      const { owner } = check;
      if (owner.ownerDisabled) return { kind: "disabled-owner" };
      const stacks = visibilityOf(owner.scope);
      return {
        kind: "caller",
        caller: {
          via: "apiKey",
          userId: owner.userId,
          email: owner.ownerEmail,
          actorName: `API Key: ${owner.keyName}`,
          role: owner.ownerRole,
          keyId: owner.keyId,
          scope: owner.scope,
          stacks,
          runs: runsVisibleIn(stacks),
        },
      };
    }
    if (!headers.has("cookie")) return { kind: "anonymous" };
    const found = await auth.api.getSession({ headers });
    if (!found) return { kind: "anonymous" };
    // Disabling deletes a person's sessions; this refuses one that was made in between anyway.
    if (found.user.disabled) return { kind: "disabled-person" };
    return {
      kind: "caller",
      caller: {
        via: "session",
        userId: found.user.id,
        email: found.user.email,
        actorName: found.user.name,
        role: found.user.role as Role,
        sessionId: found.session.id,
        stacks: EVERY_STACK,
        runs: runsVisibleIn(EVERY_STACK),
      },
    };
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;

/** The 401 message of a credential that does not identify anyone. */
export function refusalOf(authentication: Exclude<Authentication, { kind: "caller" }>): string {
  switch (authentication.kind) {
    case "invalid-key":
      return "The API key is not valid: it is unknown or was revoked";
    case "expired-key":
      return `The API key expired at ${authentication.expiresAt.toISOString()}; create a new one in Settings`;
    case "disabled-owner":
      return "The API key's owner is disabled: their keys stop working until an admin enables them again";
    case "disabled-person":
      return "Your account is disabled: ask an admin to enable it";
    case "anonymous":
      return "Sign in, or send a valid API key in the x-api-key header";
  }
}
