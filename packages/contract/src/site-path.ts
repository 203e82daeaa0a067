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

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The path a request names, as the backend's router reads it: escaped letters, digits and `-._~`
 * decoded, `\\` read as `/`, empty and dot segments resolved, no trailing slash, no fragment.
 * An absolute-form target (`GET http://host/path`) names its path.
 */
export function canonicalPath(target: string): string {
  const path = target.startsWith("/") ? target : URL.canParse(target) ? new URL(target).pathname : "/";
  const readable = path
    .split("#")[0]!
    .replace(/%([0-9A-Fa-f]{2})/g, (escaped, hex: string) => {
      const character = String.fromCharCode(Number.parseInt(hex, 16));
      return UNRESERVED.test(character) ? character : escaped;
    })
    .replaceAll("\\", "/");
  const segments: string[] = [];
  for (const segment of readable.split("/")) {
    if (segment === "..") segments.pop();
    else if (segment !== "" && segment !== ".") segments.push(segment);
  }
  return `/${segments.join("/")}`;
}

/** Why a path was refused, and how to write it, as the gateway and the backend both answer. */
export const nonCanonicalPathMessage = (canonical: string) =>
  `The path is not written canonically (a trailing slash, an empty or dot segment, a backslash, a fragment or an escaped letter or digit): use ${canonical}`;
