import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import type { Database } from "../db/database.ts";
import { account, session, user, verification } from "../db/schema.ts";
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/logger.ts";
import { requestOrigin } from "./origin-guard.ts";

export function createAuth({
  db,
  config,
  secret,
  logger,
}: {
  db: Database;
  config: Config;
  secret: string;
  logger: Logger;
}) {
  return betterAuth({
    appName: "Stackgate",
    baseURL: config.appUrl,
    basePath: "/api/auth",
    secret,
    database: drizzleAdapter(db, { provider: "sqlite", schema: { user, session, account, verification } }),
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 8 },
    // The dashboard may be reached under another host name than APP_URL (an IP, a LAN name):
    // the origin the gateway saw is trusted too, which still refuses every other site.
    trustedOrigins: (request) => [config.appUrl, request ? requestOrigin(request.headers) : undefined],
    advanced: {
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
      useSecureCookies: config.appUrl.startsWith("https://"),
    },
    telemetry: { enabled: false },
    logger: {
      log: (level, message) => {
        logger[level]({ source: "auth" }, message);
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;
