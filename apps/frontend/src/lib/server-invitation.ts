/**
 * Server side only: what an invitation link is for, asked of the backend while /invite/<token>
 * renders, so the page already shows the form or the problem. The token goes to the backend only.
 */
import { createORPCClient, ORPCError } from "@orpc/client";
import { invitationToken, type Role } from "@stackgate/contract";
import type { ApiClient } from "./api.ts";
import { serverEnv } from "./server-env.ts";

const SERVER_FETCH_TIMEOUT_MS = 3_000;

export type InvitationProblem = "expired" | "used" | "revoked" | "gone" | "unknown" | "unavailable";

export type InvitationCheck =
  | { status: "valid"; email: string; role: Role; expiresAt: Date }
  | { status: InvitationProblem };

export interface SingleSignOn {
  name: string;
  /** The provider's start address, carrying the invitation. */
  href: string;
  /** Why the provider cannot be used right now; null when it can. */
  problem: string | null;
}

export interface SignInChoices {
  password: boolean;
  sso: SingleSignOn | null;
}

const client: ApiClient = createORPCClient(serverEnv.backends.rpcLink());

export async function inspectInvitation(token: string): Promise<InvitationCheck> {
  if (!invitationToken.safeParse(token).success) return { status: "unknown" };
  try {
    const found = await client.invitations.inspect(
      { token },
      { signal: AbortSignal.timeout(SERVER_FETCH_TIMEOUT_MS) },
    );
    return { status: "valid", ...found };
  } catch (error) {
    if (!(error instanceof ORPCError)) return { status: "unavailable" };
    if (error.status === 404 || error.status === 400) return { status: "unknown" };
    if (error.status === 410) return { status: whyGone(error) };
    return { status: "unavailable" };
  }
}

/** The 410 names the reason in `data.reason` or, failing that, in its message. */
function whyGone(error: ORPCError<string, unknown>): InvitationProblem {
  const data = error.data as { reason?: unknown } | undefined;
  const said = `${typeof data?.reason === "string" ? data.reason : ""} ${error.message}`.toLowerCase();
  if (said.includes("expired")) return "expired";
  if (said.includes("revoked")) return "revoked";
  if (said.includes("used") || said.includes("accepted")) return "used";
  return "gone";
}

/** How the invitee may sign in; password only when the backend cannot say. */
export async function signInChoices(token: string): Promise<SignInChoices> {
  try {
    const options = await client.signIn.options(undefined, {
      signal: AbortSignal.timeout(SERVER_FETCH_TIMEOUT_MS),
    });
    const sso = options.sso && {
      name: options.sso.name,
      href: withInvitation(options.sso.startUrl, token),
      problem: options.sso.available ? null : (options.sso.problem ?? ""),
    };
    return { password: options.password, sso };
  } catch {
    return { password: true, sso: null };
  }
}

function withInvitation(startUrl: string, token: string): string {
  const url = new URL(startUrl, "http://same.site");
  url.searchParams.set("invitation", token);
  return url.origin === "http://same.site" ? `${url.pathname}${url.search}` : url.toString();
}
