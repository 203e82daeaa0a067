import { createContext, type ReactNode, useContext, useMemo } from "react";
import { createTranslator, type Lang, type Translate } from "../lib/i18n.ts";

interface I18nValue {
  lang: Lang;
  t: Translate;
}

const I18nContext = createContext<I18nValue | null>(null);

/** Every island root wraps its tree in this (directly or through AppProviders), passing Astro.locals.lang. */
export function I18nProvider({ lang, children }: { lang: Lang; children: ReactNode }) {
  const value = useMemo(() => ({ lang, t: createTranslator(lang) }), [lang]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useI18n/useT used outside <I18nProvider>: wrap the island root in it");
  return value;
}

export function useT(): Translate {
  return useI18n().t;
}
