/** The dashboard's sign-in page: never a place to return to after signing in. */
export const SIGN_IN_PAGE_PATH = "/sign-in";

const SITE = new URL("http://same.site");

/**
 * `value` as a path on this site, for a redirect whose target a caller chose (`?next=`,
 * `returnTo`); otherwise `fallback`. The decision is taken on the path as a browser will read it
 * once normalised (`/./`, `/../`, `%2e` and `\` collapse, tabs and newlines vanish), so that
 * `/.//evil.example` cannot turn into the protocol-relative `//evil.example`. The sign-in page
 * itself is refused too: a redirect there would loop.
 */
export function pathOnThisSite(value: string | null | undefined, fallback = "/"): string {
  if (!value?.startsWith("/")) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
  if (/[\u0000-\u001f\u007f]/.test(value)) return fallback;
  const url = URL.canParse(value, SITE) ? new URL(value, SITE) : undefined;
  if (!url || url.origin !== SITE.origin) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // What a Location header holds is resolved by the browser again: it must read as this same path.
  if (path.startsWith("//") || new URL(path, SITE).href !== url.href) return fallback;
  if (url.pathname.replace(/\/+$/, "") === SIGN_IN_PAGE_PATH) return fallback;
  return path;
}
