import type { ApiKeyService } from "../apikeys/service.ts";
import type { Auth } from "./better-auth.ts";

/** Who is making a request, as recorded in the history and in deploy events. */
export type Caller =
  | { via: "session"; userId: string; actorName: string }
  | { via: "apiKey"; userId: string; actorName: string; keyId: string };

export type Authentication =
  | { kind: "caller"; caller: Caller }
  | { kind: "invalid-key" }
  | { kind: "anonymous" };

/**
 * The specification's resolution order: a present `x-api-key` is the only credential
 * considered (an invalid one never falls back to the cookie); otherwise the session.
 */
export function createAuthenticator({ auth, apiKeys }: { auth: Auth; apiKeys: ApiKeyService }) {
  return async function authenticate(headers: Headers): Promise<Authentication> {
    const key = headers.get("x-api-key");
    if (key !== null) {
      const owner = apiKeys.verify(key.trim());
      if (!owner) return { kind: "invalid-key" };
      return {
        kind: "caller",
        caller: {
          via: "apiKey",
          userId: owner.userId,
          actorName: `API Key: ${owner.keyName}`,
          keyId: owner.keyId,
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
