import { defineMiddleware } from "astro:middleware";
import { pathOnThisSite } from "@stackgate/contract/site-path.ts";
import { LANG_COOKIE, resolveLang, resolveTheme, THEME_COOKIE } from "./lib/preferences.ts";
import { SIGN_IN_PATH, signInPathFor } from "./lib/redirects.ts";
import { serverEnv } from "./lib/server-env.ts";
import { lookUpSession } from "./lib/session.ts";

/** Pages anyone may open, signed in or not: an invitation link is opened by someone without an account. */
const PUBLIC_PATH_PREFIXES = ["/invite/"];

/** Rendered (with status 503) instead of any page while the backend cannot tell who is signed in. */
const BACKEND_UNAVAILABLE_PATH = "/backend-unavailable";

export const onRequest = defineMiddleware(async (context, next) => {
  const { locals, cookies, request, url } = context;
  locals.lang = resolveLang(cookies.get(LANG_COOKIE)?.value, request.headers.get("accept-language"));
  locals.theme = resolveTheme(cookies.get(THEME_COOKIE)?.value);
  locals.user = null;

  const session = await lookUpSession(serverEnv.backends, request.headers.get("cookie"));
  if (session.status === "unavailable") {
    console.warn(
      `[frontend] cannot check the session at ${serverEnv.backends.names}: ${session.reason} (${url.pathname})`,
    );
    locals.backendUnavailable = true;
    return next(BACKEND_UNAVAILABLE_PATH);
  }

  const onSignInPage = url.pathname === SIGN_IN_PATH;
  const onPublicPage = PUBLIC_PATH_PREFIXES.some((prefix) => url.pathname.startsWith(prefix));
  let response: Response;
  if (session.status === "signed-in") {
    locals.user = session.user;
    response = onSignInPage ? redirect(pathOnThisSite(url.searchParams.get("next"))) : await next();
  } else if (onSignInPage || onPublicPage) {
    response = await next();
  } else {
    response = redirect(signInPathFor(`${url.pathname}${url.search}`));
  }
  for (const setCookie of session.setCookies) response.headers.append("set-cookie", setCookie);
  // Every page shows who is signed in: never let a shared cache keep one.
  if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
  return response;
});

/**
 * A relative Location: behind the gateway, the URL Astro sees is the internal one. A fresh Response
 * (not context.redirect) keeps its headers writable for the session cookies appended above.
 */
function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}
