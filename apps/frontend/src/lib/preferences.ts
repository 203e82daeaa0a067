import { DEFAULT_LANG, isLang, LANGS, type Lang } from "./i18n.ts";

/** Per-browser preferences, kept in cookies so the server renders the right language and theme. */
export const LANG_COOKIE = "sg_lang";
export const THEME_COOKIE = "sg_theme";

export const THEMES = ["light", "dark", "system"] as const;
export type Theme = (typeof THEMES)[number];

export function isTheme(value: unknown): value is Theme {
  return THEMES.includes(value as Theme);
}

export function resolveTheme(cookieValue: string | undefined): Theme {
  return isTheme(cookieValue) ? cookieValue : "system";
}

/** The cookie wins; otherwise the browser's best-ranked supported language; otherwise English. */
export function resolveLang(cookieValue: string | undefined, acceptLanguage: string | null): Lang {
  if (isLang(cookieValue)) return cookieValue;
  return preferredLangFromHeader(acceptLanguage ?? "") ?? DEFAULT_LANG;
}

/** Picks from an Accept-Language header such as `es-ES,es;q=0.9,en;q=0.8`, honouring q-values. */
export function preferredLangFromHeader(header: string): Lang | undefined {
  const ranked = header
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const quality = qParam ? Number(qParam.slice(2)) : 1;
      return {
        base: tag.trim().toLowerCase().split("-")[0],
        quality: Number.isNaN(quality) ? 0 : quality,
        index,
      };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  return ranked.map((entry) => entry.base).find((base): base is Lang => LANGS.includes(base as Lang));
}

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

/** Browser only: remembers a preference for a year. */
export function rememberPreference(name: typeof LANG_COOKIE | typeof THEME_COOKIE, value: string): void {
  const secure = window.location.protocol === "https:" ? "; Secure" : "";
  // biome-ignore lint/suspicious/noDocumentCookie: one write of a non-sensitive preference; the Cookie Store API is not in every supported browser.
  document.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${ONE_YEAR_SECONDS}; Path=/; SameSite=Lax${secure}`;
}
