/// <reference path="./oidc-provider-module.d.ts" />
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import Provider from "oidc-provider";

/** The claims an account at the test provider answers with (besides `sub`, its login). */
export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
  [claim: string]: unknown;
}

const KEY_ID = "test-signing-key";

async function signingKey() {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: KEY_ID, alg: "RS256", use: "sig" };
  return { privateKey, jwk };
}

/**
 * A real OpenID Provider (`oidc-provider`) on 127.0.0.1, with one confidential client for Stackgate,
 * accounts whose claims the test sets, and its development login form (any password signs in as
 * the login typed). `tamperIdTokens` rewrites the ID token the token endpoint answers with, signed
 * with the provider's own key or another one, for the failure cases.
 */
export async function startTestProvider({
  appUrl,
  port = 0,
  clientId = "stackgate",
  clientSecret = `secret-${randomBytes(12).toString("hex")}`,
}: {
  /** Stackgate's public origin(s): the callback and the post-logout address are registered under each. */
  appUrl: string | string[];
  port?: number;
  clientId?: string;
  clientSecret?: string;
}) {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const key = await signingKey();
  const accounts = new Map<string, ProviderAccount>();
  let tamper: ((claims: Record<string, unknown>) => Record<string, unknown>) | null = null;
  let tamperKey: CryptoKey | null = null;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [appUrl].flat().map((origin) => `${origin}/api/auth/sso/callback`),
        post_logout_redirect_uris: [appUrl].flat().map((origin) => `${origin}/sign-in`),
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    jwks: { keys: [key.jwk] },
    cookies: { keys: [randomBytes(16).toString("hex")] },
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
      groups: ["groups"],
    },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    pkce: { required: () => true },
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () => ({ sub, ...accounts.get(sub) }),
    }),
  });
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path !== "/token" || !tamper || !body?.id_token) return;
    const claims = tamper(decodeJwt(body.id_token));
    const idToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: KEY_ID })
      .sign(tamperKey ?? key.privateKey);
    ctx.body = { ...body, id_token: idToken };
  });
  server.on("request", provider.callback());

  return {
    issuer,
    clientId,
    clientSecret,
    /** The environment that points Stackgate at this provider. */
    env: { OIDC_ISSUER_URL: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } as Record<
      string,
      string
    >,
    setAccount(login: string, claims: ProviderAccount) {
      accounts.set(login, claims);
    },
    /**
     * From now on the token endpoint answers an ID token with these changes, signed with the
     * provider's key, or with a key of the same id that the provider never published (`foreignKey`).
     */
    async tamperIdTokens(
      change: ((claims: Record<string, unknown>) => Record<string, unknown>) | null,
      { foreignKey = false } = {},
    ) {
      tamper = change;
      tamperKey = foreignKey ? (await signingKey()).privateKey : null;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type TestProvider = Awaited<ReturnType<typeof startTestProvider>>;

type Jar = Map<string, Map<string, string>>;

function keepCookies(jar: Jar, origin: string, response: Response) {
  const cookies = jar.get(origin) ?? new Map<string, string>();
  jar.set(origin, cookies);
  for (const line of response.headers.getSetCookie()) {
    const [pair = "", ...attributes] = line.split(";");
    const at = pair.indexOf("=");
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute)) || value === "";
    if (expired) cookies.delete(name);
    else cookies.set(name, value);
  }
}

const cookieHeader = (jar: Jar, origin: string) =>
  [...(jar.get(origin) ?? new Map()).entries()].map(([name, value]) => `${name}=${value}`).join("; ");

/**
 * A browser's part of a sign-in with the provider, over plain HTTP: starts at Stackgate, signs in on
 * the provider's development form as `login`, gives consent, and follows the provider back to the
 * callback. Stackgate's public origin (`appUrl`) is served by the test backend at `backendUrl`.
 * Returns where the callback sent the browser and the Stackgate cookies it then holds.
 */
export async function signInAtProvider({
  backendUrl,
  appUrl,
  login,
  startQuery = "",
  jar = new Map(),
  beforeCallback,
}: {
  backendUrl: string;
  appUrl: string;
  login: string;
  startQuery?: string;
  jar?: Jar;
  /** Sees the callback URL the provider sent the browser to (a test may replay it later). */
  beforeCallback?: (callbackUrl: string) => void;
}) {
  const toBackend = (url: string) => (url.startsWith(appUrl) ? backendUrl + url.slice(appUrl.length) : url);
  let url = `${backendUrl}/api/auth/sso/start${startQuery}`;
  let init: RequestInit = {};
  for (let hop = 0; hop < 25; hop++) {
    const { origin } = new URL(url);
    const isCallback = url.startsWith(`${backendUrl}/api/auth/sso/callback`);
    if (isCallback) beforeCallback?.(url);
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers as Record<string, string>), cookie: cookieHeader(jar, origin) },
    });
    keepCookies(jar, origin, response);
    const location = response.headers.get("location");
    if (location && response.status >= 300 && response.status < 400) {
      if (isCallback) return { location, cookie: cookieHeader(jar, backendUrl), jar };
      url = toBackend(new URL(location, url).href);
      init = {};
      continue;
    }
    if (origin === backendUrl) {
      return { location: null, status: response.status, body: await response.text(), cookie: "", jar };
    }
    // The provider's development pages: the login form, then the consent form.
    const page = await response.text();
    const action = page.match(/<form[^>]*action="([^"]+)"/)?.[1];
    const prompt = page.match(/name="prompt" value="([^"]+)"/)?.[1];
    if (!action || !prompt)
      throw new Error(`unexpected provider page (${response.status}): ${page.slice(0, 300)}`);
    const form = new URLSearchParams({ prompt });
    if (prompt === "login") {
      form.set("login", login);
      form.set("password", "any password works here");
    }
    url = new URL(action.replaceAll("&amp;", "&"), url).href;
    init = {
      method: "POST",
      body: form.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    };
  }
  throw new Error("too many redirects");
}
