export const SIGN_IN_PATH = "/sign-in";

/**
 * Returns `next` only when it is a path on this site (so `?next=` cannot send anyone elsewhere);
 * otherwise the fallback. Rejects protocol-relative (`//evil`), backslash (`/\evil`) and absolute URLs,
 * and never points back at the sign-in page.
 */
export function safeNextPath(next: string | null | undefined, fallback = "/"): string {
  if (!next?.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is rejected.
  if (/[\u0000-\u001f\u007f]/.test(next)) return fallback;
  const base = new URL("http://same.site");
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return fallback;
  }
  if (url.origin !== base.origin || url.pathname === SIGN_IN_PATH) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

export function signInPathFor(nextPath: string): string {
  return `${SIGN_IN_PATH}?next=${encodeURIComponent(nextPath)}`;
}
