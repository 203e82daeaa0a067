import type { Lang } from "../../lib/i18n.ts";
import type { Theme } from "../../lib/preferences.ts";
import { I18nProvider } from "../I18nProvider.tsx";
import { LanguageSwitch } from "./LanguageSwitch.tsx";
import { ThemeSwitch } from "./ThemeSwitch.tsx";

/** Language and theme for pages outside the shell, such as sign-in (an island). */
export function PreferenceSwitches({ lang, theme }: { lang: Lang; theme: Theme }) {
  return (
    <I18nProvider lang={lang}>
      <div className="flex items-center gap-1.5">
        <LanguageSwitch />
        <ThemeSwitch initialTheme={theme} />
      </div>
    </I18nProvider>
  );
}
