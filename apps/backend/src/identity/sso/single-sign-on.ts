import { invitationToken, pathOnThisSite } from "@stackgate/contract";
import type { BetterAuthPlugin } from "better-auth";
import { createAuthEndpoint } from "better-auth/api";
import { deleteSessionCookie, setSessionCookie } from "better-auth/cookies";
import * as oidc from "openid-client";
import { z } from "zod";
import type { AuditService } from "../../audit/service.ts";
import type { Database } from "../../db/database.ts";
import type { Clock } from "../../platform/clock.ts";
import type { SingleSignOnConfig } from "../../platform/config.ts";
import type { Logger } from "../../platform/logger.ts";
import { decidePerson, type SignInRefusal } from "./people.ts";
import { createProviderConnection, type ProviderConnection } from "./provider.ts";
import { createPendingSignIns, type PendingSignIn, TRANSACTION_TTL_MS } from "./transactions.ts";

export const SSO_START_PATH = "/api/auth/sso/start";
export const SSO_CALLBACK_PATH = "/api/auth/sso/callback";
const SIGN_IN_PAGE = "/sign-in";
/** Binds a pending sign-in to the browser that started it; sent only to the callback. */
const BINDING_COOKIE = "stackgate_sso";
const BINDING_COOKIE_PATH = "/api/auth/sso";

/** Why a sign-in came back without a session, as the sign-in page explains it (`?sso_error=`). */
export type SsoError = SignInRefusal | "unavailable" | "expired" | "provider-refused" | "invalid-response";

const logoutRecord = (sessionId: string) => `sso-logout:${sessionId}`;

/**
 * Single sign-on with an OpenID Provider: discovery, the authorization code flow with PKCE (S256),
 * `state` and `nonce` checked once, the ID token's signature, issuer, audience and expiry verified
 * (openid-client), then the person decided (people.ts) and a Better Auth session made for them.
 */
export function createSingleSignOn({
  config,
  appUrl,
  db,
  audit,
  logger,
  clock,
}: {
  config: SingleSignOnConfig;
  appUrl: string;
  db: Database;
  audit: AuditService;
  logger: Logger;
  clock: Clock;
}) {
  const provider: ProviderConnection = createProviderConnection({ config, logger, clock });
  const pending = createPendingSignIns(clock);
  const callbackUrl = `${appUrl}${SSO_CALLBACK_PATH}`;
  const secureCookies = appUrl.startsWith("https://");

  return {
    config,
    provider,
    pending,
    callbackUrl,
    secureCookies,
    /** The person the provider's verified claims stand for, or why not. */
    decide: (claims: Record<string, unknown>, invitation: string | undefined) =>
      decidePerson({ db, audit, config, clock, claims, invitationToken: invitation }),
    /** A sign-in through the provider, in the audit; not a condition of signing in. */
    async signedIn(person: { id: string; name: string; email: string }) {
      try {
        await audit.recordChange({
          by: person,
          action: "user.signed-in",
          target: person.email,
          detail: { method: "sso", provider: config.name },
        });
      } catch (error) {
        logger.warn({ err: error }, "single sign-on: the sign-in was not recorded in the audit");
      }
    },
    /** What the sign-in page needs to know about single sign-on (GET /api/v0/sign-in/options). */
    async options() {
      const state = await provider.current();
      return {
        name: config.name,
        startUrl: SSO_START_PATH,
        autoRedirect: config.autoRedirect,
        available: state.status === "ready",
        problem: state.status === "ready" ? null : state.problem,
      };
    },
    /** Where the browser ends the provider's session after ours, when the provider offers it. */
    async endSessionUrl(idToken: string): Promise<string | null> {
      const state = await provider.current();
      if (state.status !== "ready" || !state.client.serverMetadata().end_session_endpoint) return null;
      return oidc.buildEndSessionUrl(state.client, {
        id_token_hint: idToken,
        post_logout_redirect_uri: `${appUrl}${SIGN_IN_PAGE}`,
      }).href;
    },
    logger,
  };
}

export type SingleSignOn = ReturnType<typeof createSingleSignOn>;

/** openid-client's errors say "unexpected JWT claim value"; the log line also names the claim or check. */
function describeTokenFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, cause } = error as Error & { code?: string; cause?: unknown };
  const details: string[] = [];
  if (code) details.push(code);
  if (cause instanceof Error) details.push(cause.message);
  else if (cause && typeof cause === "object" && "claim" in cause)
    details.push(`claim "${String(cause.claim)}"`);
  return details.length > 0 ? `${error.message} (${details.join(": ")})` : error.message;
}

/**
 * Exchanges the code (with the PKCE verifier) and verifies the ID token: signature against the
 * provider's keys, issuer, audience, expiry, `state` and `nonce`. Then the claims, with UserInfo's.
 */
async function verifiedClaims(
  client: oidc.Configuration,
  returned: URL,
  started: PendingSignIn,
  logger: Logger,
): Promise<{ claims: Record<string, unknown>; idToken: string } | { problem: string }> {
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(client, returned, {
      pkceCodeVerifier: started.codeVerifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    return { problem: describeTokenFailure(error) };
  }
  const idClaims = tokens.claims();
  if (!idClaims || !tokens.id_token) return { problem: "the provider sent no ID token" };
  // Many providers put email and groups in the UserInfo answer only (oidc-provider, Authelia);
  // the ID token's own claims win where both have one.
  if (!client.serverMetadata().userinfo_endpoint)
    return { claims: { ...idClaims }, idToken: tokens.id_token };
  try {
    const userInfo = await oidc.fetchUserInfo(client, tokens.access_token, idClaims.sub);
    return { claims: { ...userInfo, ...idClaims }, idToken: tokens.id_token };
  } catch (error) {
    logger.warn(
      { reason: (error as Error).message },
      "single sign-on: UserInfo not read; using the ID token alone",
    );
    return { claims: { ...idClaims }, idToken: tokens.id_token };
  }
}

const refusedTo = (error: SsoError) => `${SIGN_IN_PAGE}?sso_error=${error}`;

const startQuery = z.object({
  returnTo: z.string().max(2048, "returnTo: must be a path of at most 2048 characters").optional(),
  invitation: invitationToken.optional(),
});

const callbackQuery = z.object({
  state: z.string().max(512).optional(),
  code: z.string().max(4096).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
  iss: z.string().max(2048).optional(),
});

/**
 * The Better Auth plugin that serves single sign-on under /api/auth/sso, so its session is made
 * and its cookie set exactly as a password sign-in's. Without OIDC configuration only the sign-out
 * is served (the dashboard always signs out through it).
 */
export function singleSignOnPlugin(sso: SingleSignOn | null) {
  const notConfigured = () =>
    new Response(
      JSON.stringify({ code: "NOT_FOUND", status: 404, message: "Single sign-on is not configured" }),
      {
        status: 404,
        headers: { "content-type": "application/json" },
      },
    );

  return {
    id: "stackgate-single-sign-on",
    endpoints: {
      ssoStart: createAuthEndpoint(
        "/sso/start",
        { method: "GET", query: startQuery, metadata: { isAction: false } },
        async (ctx) => {
          if (!sso) return notConfigured();
          const state = await sso.provider.current();
          if (state.status !== "ready") throw ctx.redirect(refusedTo("unavailable"));
          const codeVerifier = oidc.randomPKCECodeVerifier();
          const started = sso.pending.add({
            state: oidc.randomState(),
            nonce: oidc.randomNonce(),
            codeVerifier,
            returnTo: pathOnThisSite(ctx.query.returnTo),
            invitation: ctx.query.invitation,
          });
          ctx.setCookie(BINDING_COOKIE, started.browserBinding, {
            httpOnly: true,
            // Lax: the provider sends the browser back with a top-level GET, which carries it.
            sameSite: "lax",
            secure: sso.secureCookies,
            path: BINDING_COOKIE_PATH,
            maxAge: TRANSACTION_TTL_MS / 1000,
          });
          const url = oidc.buildAuthorizationUrl(state.client, {
            redirect_uri: sso.callbackUrl,
            scope: sso.config.scopes,
            code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
            code_challenge_method: "S256",
            state: started.state,
            nonce: started.nonce,
          });
          throw ctx.redirect(url.href);
        },
      ),

      ssoCallback: createAuthEndpoint(
        "/sso/callback",
        { method: "GET", query: callbackQuery, metadata: { isAction: false } },
        async (ctx) => {
          if (!sso) return notConfigured();
          const { logger } = sso;
          const refuse = (error: SsoError, reason: string): never => {
            logger.warn({ refusal: error, reason }, "single sign-on refused");
            throw ctx.redirect(refusedTo(error));
          };
          const binding = ctx.getCookie(BINDING_COOKIE) ?? undefined;
          ctx.setCookie(BINDING_COOKIE, "", { httpOnly: true, path: BINDING_COOKIE_PATH, maxAge: 0 });
          const started = ctx.query.state ? sso.pending.take(ctx.query.state, binding) : null;
          if (!started) return refuse("expired", "unknown, used, expired or another browser's state");
          if (ctx.query.error) return refuse("provider-refused", `the provider answered ${ctx.query.error}`);

          const provider = await sso.provider.current();
          if (provider.status !== "ready") return refuse("unavailable", provider.problem);
          const returned = new URL(sso.callbackUrl);
          for (const [name, value] of Object.entries(ctx.query))
            if (value) returned.searchParams.set(name, value);

          const verified = await verifiedClaims(provider.client, returned, started, logger);
          if ("problem" in verified) return refuse("invalid-response", verified.problem);
          const { claims, idToken } = verified;

          const decision = await sso.decide(claims, started.invitation);
          if (decision.kind === "refused") return refuse(decision.refusal, decision.detail);
          for (const warning of decision.warnings) logger.warn(`single sign-on: ${warning}`);

          const adapter = ctx.context.internalAdapter;
          const person = await adapter.findUserById(decision.userId);
          if (!person) return refuse("invalid-response", "the person vanished while signing in");
          const session = await adapter.createSession(person.id);
          await adapter.createVerificationValue({
            identifier: logoutRecord(session.id),
            value: idToken,
            expiresAt: session.expiresAt,
          });
          await setSessionCookie(ctx, { session, user: person });
          await sso.signedIn(person);
          logger.info(
            {
              userId: person.id,
              role: decision.role,
              roleFromSso: decision.roleFromSso,
              created: decision.created,
            },
            "signed in with single sign-on",
          );
          throw ctx.redirect(started.returnTo);
        },
      ),

      ssoSignOut: createAuthEndpoint(
        "/sso/sign-out",
        { method: "POST", requireHeaders: true },
        async (ctx) => {
          const adapter = ctx.context.internalAdapter;
          const token = await ctx.getSignedCookie(
            ctx.context.authCookies.sessionToken.name,
            ctx.context.secret,
          );
          let redirectTo = SIGN_IN_PAGE;
          const found = token ? await adapter.findSession(token) : null;
          if (token && found) {
            const record = await adapter.findVerificationValue(logoutRecord(found.session.id));
            if (record) {
              await adapter.deleteVerificationByIdentifier(record.identifier);
              redirectTo = (sso && (await sso.endSessionUrl(record.value))) || SIGN_IN_PAGE;
            }
            await adapter.deleteSession(token);
          }
          deleteSessionCookie(ctx);
          return ctx.json({ redirectTo });
        },
      ),
    },
  } satisfies BetterAuthPlugin;
}
