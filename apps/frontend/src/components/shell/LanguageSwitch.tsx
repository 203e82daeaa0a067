import { cx } from "../../lib/cx.ts";
import { LANGS, LANGUAGE_NAMES, type Lang } from "../../lib/i18n.ts";
import { LANG_COOKIE, rememberPreference } from "../../lib/preferences.ts";
import { useI18n } from "../I18nProvider.tsx";

/** Pages are translated on the server, so a change reloads the page in the new language. */
export function LanguageSwitch() {
  const { lang: current, t } = useI18n();
  const choose = (lang: Lang) => {
    if (lang === current) return;
    rememberPreference(LANG_COOKIE, lang);
    window.location.reload();
  };
  return (
    <fieldset className="flex rounded-md border border-line p-0.5">
      <legend className="sr-only">{t("prefs.language")}</legend>
      {LANGS.map((lang) => (
        <button
          key={lang}
          type="button"
          lang={lang}
          // Starts with what the button shows, so speech input ("click EN") finds it too.
          aria-label={`${lang.toUpperCase()}, ${LANGUAGE_NAMES[lang]}`}
          title={LANGUAGE_NAMES[lang]}
          aria-pressed={lang === current}
          onClick={() => choose(lang)}
          className={cx(
            "h-7 rounded px-2 text-xs font-semibold uppercase transition-colors",
            lang === current ? "bg-surface-muted text-fg" : "text-fg-muted hover:text-fg",
          )}
        >
          {lang}
        </button>
      ))}
    </fieldset>
  );
}
