import { betterAuth } from "better-auth";
import { APIError, createAuthMiddleware, isAPIError } from "better-auth/api";
import { eq } from "drizzle-orm";
import type { AuditService } from "../../audit/service.ts";
import type { Cluster } from "../../db/cluster.ts";
import type { Database, OpenedDatabase } from "../../db/database.ts";
import { user } from "../../db/schema.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Config } from "../../platform/config.ts";
import type { Logger } from "../../platform/logger.ts";
import { requestOrigin } from "../origin-guard.ts";
import type { Passwords } from "../people/service.ts";
import { type SingleSignOn, singleSignOnPlugin } from "../sso/single-sign-on.ts";
import type { FirstPasswordStore } from "./first-password.ts";
import { clientAddress, createSignInLimiter, describeWait } from "./sign-in-limiter.ts";

const SIGN_IN_PATH = "/sign-in/email";

/**
 * The only Better Auth routes served. Its others stay closed: sign-up, links that end in a redirect
 * to a `callbackURL` (e-mail verification, password reset: an open redirect), and the name and
 * password changes that /api/v0/me makes with an audit record (and ending the other sessions).
 */
export const SERVED_AUTH_PATHS = new Set([
  "/api/auth/sign-in/email",
  "/api/auth/sign-out",
  "/api/auth/get-session",
  "/api/auth/sso/start",
  "/api/auth/sso/callback",
  "/api/auth/sso/sign-out",
]);

export function createAuth({
  db,
  authAdapter,
  cluster,
  config,
  secret,
  logger,
  clock,
  firstPassword,
  audit,
  singleSignOn = null,
}: {
  db: Database;
  authAdapter: OpenedDatabase["authAdapter"];
  /** The other backends on the database, which count sign-in failures together with this one. */
  cluster?: Cluster;
  config: Config;
  secret: string;
  logger: Logger;
  clock: Clock;
  firstPassword: FirstPasswordStore;
  /** Where sign-ins, failed ones and lockouts are recorded. */
  audit: AuditService;
  /** Single sign-on (OIDC), when configured: served under /api/auth/sso. */
  singleSignOn?: SingleSignOn | null;
}) {
  const limiter = createSignInLimiter({ limits: config.signInLimits, clock, cluster });
  /**
   * A password sign-in in the audit, by the person whose email was given (or by that email, when
   * nobody has it). Not a condition of signing in: a database that will not take it costs the record.
   */
  const recordSignIn = async (email: string, action: string, detail: Record<string, unknown>) => {
    try {
      const typed = email.slice(0, 254).toLowerCase();
      const [person] = await db
        .select({ id: user.id, name: user.name, email: user.email })
        .from(user)
        .where(eq(user.email, typed));
      const by = person ?? { id: null, name: typed || "(no email)", email: typed || null };
      await audit.recordChange({ by, action, target: typed || null, detail });
    } catch (error) {
      logger.warn({ err: error, action }, "sign-in not recorded in the audit");
    }
  };
  const signInAttempt = (ctx: { body?: unknown; headers?: Headers }) => {
    const email = (ctx.body as { email?: unknown } | undefined)?.email;
    return {
      email: typeof email === "string" ? email : "",
      address: clientAddress(ctx.headers ?? new Headers(), config.trustProxy),
    };
  };

  return betterAuth({
    appName: "Stackgate",
    baseURL: config.appUrl,
    basePath: "/api/auth",
    secret,
    database: authAdapter,
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 8 },
    // Stackgate's own columns of a person: get-session answers them, and nobody sets them through
    // Better Auth (input: false): roles and disabling go through the people API, by admins.
    user: {
      additionalFields: {
        role: { type: "string", required: false, defaultValue: "viewer", input: false },
        disabled: { type: "boolean", required: false, defaultValue: false, input: false },
        roleFromSso: { type: "boolean", required: false, defaultValue: false, input: false },
        lastSignInAt: { type: "date", required: false, input: false },
      },
    },
    // Every sign-in makes a session, whatever its method (password, single sign-on, an invitation):
    // a disabled person gets none, and the others' last sign-in is noted.
    databaseHooks: {
      session: {
        create: {
          before: async (newSession) => {
            const [owner] = await db
              .select({ disabled: user.disabled })
              .from(user)
              .where(eq(user.id, newSession.userId));
            if (owner?.disabled) {
              throw new APIError("FORBIDDEN", {
                code: "ACCOUNT_DISABLED",
                message: "This account is disabled: ask an admin to enable it",
              });
            }
          },
          after: async (created) => {
            // A note, not a condition of signing in: a database that will not take it now costs the note only.
            try {
              await db.transaction((tx) =>
                tx
                  .update(user)
                  .set({ lastSignInAt: new Date(clock.now()) })
                  .where(eq(user.id, created.userId)),
              );
            } catch (error) {
              logger.warn({ err: error }, "last sign-in time not written");
            }
          },
        },
      },
    },
    // The dashboard may be reached under another host name than APP_URL (an IP, a LAN name):
    // the origin the gateway saw is trusted too, which still refuses every other site.
    trustedOrigins: (request) => [config.appUrl, request ? requestOrigin(request.headers) : undefined],
    advanced: {
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
      useSecureCookies: config.appUrl.startsWith("https://"),
    },
    // Better Auth's own limiter runs only in production and counts every request; ours counts
    // failed sign-ins per account and per address, in every mode (see sign-in-limiter.ts).
    rateLimit: { enabled: false },
    plugins: [singleSignOnPlugin(singleSignOn)],
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== SIGN_IN_PATH) return;
        refuseWhenPasswordSignInIsOff(config, singleSignOn);
        const { email, address } = signInAttempt(ctx);
        const lockout = limiter.check(email, address);
        if (!lockout) return;
        const wait = describeWait(lockout.retryAfterMs);
        logger.warn({ scope: lockout.scope, address }, "sign-in refused: too many failed attempts");
        throw new APIError(
          "TOO_MANY_REQUESTS",
          {
            code: "TOO_MANY_REQUESTS",
            status: 429,
            message:
              lockout.scope === "account"
                ? `Too many failed sign-ins for this account: try again in ${wait}`
                : `Too many failed sign-ins from your address: try again in ${wait}`,
            retryAfterSeconds: Math.ceil(lockout.retryAfterMs / 1000),
          },
          { "Retry-After": String(Math.ceil(lockout.retryAfterMs / 1000)) },
        );
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== SIGN_IN_PATH) return;
        const { email, address } = signInAttempt(ctx);
        const returned = ctx.context.returned;
        if (isAPIError(returned)) {
          if (returned.statusCode !== 401) return;
          limiter.failed(email, address);
          await recordSignIn(email, "user.sign-in-failed", { address });
          // Recorded once, by the failure that starts it: the refused attempts after it write nothing.
          const lockout = limiter.check(email, address);
          if (lockout) {
            await recordSignIn(email, "user.sign-in-locked-out", {
              address,
              scope: lockout.scope,
              for: describeWait(lockout.retryAfterMs),
            });
          }
          return;
        }
        limiter.succeeded(email);
        firstPassword.signedIn(email);
        await recordSignIn(email, "user.signed-in", { method: "password", address });
      }),
    },
    // Errors that are not Better Auth's own answers (a locked or full database) reach the HTTP
    // layer's one error mapping, which answers them 503 with the reason, instead of a bare 500.
    onAPIError: { throw: true },
    telemetry: { enabled: false },
    logger: {
      log: (level, message) => {
        logger[level]({ source: "auth" }, message);
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

/** Better Auth's own hashing, for the passwords set outside its routes (people/service.ts). */
export const passwordsOf = (auth: Auth): Passwords => ({
  hash: async (password) => (await auth.$context).password.hash(password),
  verify: async (input) => (await auth.$context).password.verify(input),
});

/** PASSWORD_SIGN_IN=false: people sign in with the provider only (the README says how to get back in). */
function refuseWhenPasswordSignInIsOff(config: Config, singleSignOn: SingleSignOn | null) {
  if (config.passwordSignIn) return;
  throw new APIError("FORBIDDEN", {
    code: "PASSWORD_SIGN_IN_OFF",
    status: 403,
    message: `Password sign-in is turned off here (PASSWORD_SIGN_IN=false): sign in with ${singleSignOn?.config.name ?? "single sign-on"}`,
  });
}
