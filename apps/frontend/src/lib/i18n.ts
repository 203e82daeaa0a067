/**
 * English and Spanish messages. English is the reference: its keys are the only valid keys, the Spanish
 * dictionary must have every one of them, and both must use the same `{placeholders}` — all checked by
 * the type checker.
 */

import * as alerts from "../i18n/alerts.ts";
import * as bulk from "../i18n/bulk.ts";
import * as history from "../i18n/history.ts";
import * as overview from "../i18n/overview.ts";
import * as palette from "../i18n/palette.ts";
import * as people from "../i18n/people.ts";
import * as runs from "../i18n/runs.ts";
import * as security from "../i18n/security.ts";
import * as settings from "../i18n/settings.ts";
import * as shell from "../i18n/shell.ts";
import * as signIn from "../i18n/sign-in.ts";
import * as stacks from "../i18n/stacks.ts";

export const LANGS = ["en", "es"] as const;
export type Lang = (typeof LANGS)[number];
export const DEFAULT_LANG: Lang = "en";

/** Each language named in itself, as language pickers show it. */
export const LANGUAGE_NAMES: Record<Lang, string> = { en: "English", es: "Español" };

export function isLang(value: unknown): value is Lang {
  return LANGS.includes(value as Lang);
}

// One dictionary file per area of the dashboard; English is the reference for all of them.
const en = {
  ...shell.en,
  ...overview.en,
  ...stacks.en,
  ...history.en,
  ...runs.en,
  ...security.en,
  ...settings.en,
  ...bulk.en,
  ...palette.en,
  ...people.en,
  ...signIn.en,
  ...alerts.en,
} as const;

export type MessageKey = keyof typeof en;

/**
 * Spanish is built only when a page asks for it: the two dictionaries' object literals took about
 * 14 ms of every page's start-up in the browser (4 times that in Lighthouse's phone).
 */
const spanish = () =>
  ({
    ...shell.es(),
    ...overview.es(),
    ...stacks.es(),
    ...history.es(),
    ...runs.es(),
    ...security.es(),
    ...settings.es(),
    ...bulk.es(),
    ...palette.es(),
    ...people.es(),
    ...signIn.es(),
    ...alerts.es(),
  }) as const satisfies { readonly [K in MessageKey]: string };
type Spanish = ReturnType<typeof spanish>;

let builtSpanish: Spanish | undefined;
const dictionaries: Record<Lang, () => Record<MessageKey, string>> = {
  en: () => en,
  es: () => {
    builtSpanish ??= spanish();
    return builtSpanish;
  },
};

/** The names inside `{…}` in a message, as a union of string literals. */
type Placeholders<Message extends string> = Message extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

type SamePlaceholders<A extends string, B extends string> = [Placeholders<A>] extends [Placeholders<B>]
  ? [Placeholders<B>] extends [Placeholders<A>]
    ? true
    : false
  : false;

type KeysWithMismatchedPlaceholders = {
  [K in MessageKey]: SamePlaceholders<(typeof en)[K], Spanish[K]> extends true ? never : K;
}[MessageKey];

/** Fails to compile, naming the key, when a Spanish message drops or renames a placeholder. */
export type PlaceholdersMatch = AssertNever<KeysWithMismatchedPlaceholders>;
type AssertNever<T extends never> = T;

export type ParamsFor<K extends MessageKey> = [Placeholders<(typeof en)[K]>] extends [never]
  ? []
  : [params: Record<Placeholders<(typeof en)[K]>, string | number>];

/** Keys of messages without placeholders: what a variable key (nav labels, page titles) may be. */
export type PlainMessageKey = {
  [K in MessageKey]: [Placeholders<(typeof en)[K]>] extends [never] ? K : never;
}[MessageKey];

/** Whether `key` is a message (for keys made at run time, such as an audit action's). */
export const isMessageKey = (key: string): key is MessageKey => Object.hasOwn(en, key);

export type Translate = <K extends MessageKey>(key: K, ...params: ParamsFor<K>) => string;

export function createTranslator(lang: Lang): Translate {
  const dictionary = dictionaries[lang]();
  return (key, ...args) => {
    const params = args[0] as Record<string, string | number> | undefined;
    const message = dictionary[key];
    if (!params) return message;
    return message.replace(/\{(\w+)\}/g, (placeholder, name: string) =>
      name in params ? String(params[name]) : placeholder,
    );
  };
}
