import type { KeyScope } from "../apikeys/scope.ts";
import type { ApiKeyService } from "../apikeys/service.ts";
import type { Auth } from "./better-auth.ts";

/** Who is making a request, as recorded in the history and in deploy events. */
export type Caller =
  | { via: "session"; userId: string; actorName: string }
  | { via: "apiKey"; userId: string; actorName: string; keyId: string; scope: KeyScope | null };

export type Authentication =
  | { kind: "caller"; caller: Caller }
  | { kind: "invalid-key" }
  | { kind: "expired-key"; expiresAt: Date }
  | { kind: "anonymous" };

/**
 * The specification's resolution order: a present `x-api-key` is the only credential
 * considered (an invalid one never falls back to the cookie); otherwise the session.
 */
export function createAuthenticator({ auth, apiKeys }: { auth: Auth; apiKeys: ApiKeyService }) {
  return async function authenticate(headers: Headers): Promise<Authentication> {
    const key = headers.get("x-api-key");
    if (key !== null) {
      const check = apiKeys.verify(key.trim());
      if (!check) return { kind: "invalid-key" };
      if (check.kind === "expired") return { kind: "expired-key", expiresAt: check.expiresAt };
      const { owner } = check;
      return {
        kind: "caller",
        caller: {
          via: "apiKey",
          userId: owner.userId,
          actorName: `API Key: ${owner.keyName}`,
          keyId: owner.keyId,
          scope: owner.scope,
        },
      };
    }
    if (!headers.has("cookie")) return { kind: "anonymous" };
    const found = await auth.api.getSession({ headers });
    if (!found) return { kind: "anonymous" };
    return { kind: "caller", caller: { via: "session", userId: found.user.id, actorName: found.user.name } };
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
    case "anonymous":
      return "Sign in, or send a valid API key in the x-api-key header";
  }
}
