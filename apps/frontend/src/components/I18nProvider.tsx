import { createContext, createElement, Fragment, type ReactNode, useContext, useMemo } from "react";
import { createTranslator, type Lang, type MessageKey, type ParamsFor, type Translate } from "../lib/i18n.ts";

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

export type TranslateIsolated = <K extends MessageKey>(key: K, ...params: ParamsFor<K>) => ReactNode;

/**
 * Like `t`, with each value in its own `<bdi>`: for names and messages from upstream, whose
 * right-to-left characters must not reorder the sentence around them. The text stays the same.
 */
export function useTIsolated(): TranslateIsolated {
  const { t } = useI18n();
  return useMemo<TranslateIsolated>(
    () =>
      (key, ...args) => {
        const params = args[0] as Record<string, string | number> | undefined;
        // Without values, t gives the message with its placeholders as they are.
        const message = (t as (key: MessageKey) => string)(key);
        if (!params) return message;
        // Odd parts are placeholder names. Spread as arguments, the parts need no keys.
        const parts = message
          .split(/\{(\w+)\}/)
          .map((part, index) =>
            index % 2 === 0 ? part : createElement("bdi", null, part in params ? params[part] : `{${part}}`),
          );
        return createElement(Fragment, null, ...parts);
      },
    [t],
  );
}
