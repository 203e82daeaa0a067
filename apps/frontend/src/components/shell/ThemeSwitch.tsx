import { useState, useSyncExternalStore } from "react";
import { rememberPreference, THEME_COOKIE, type Theme } from "../../lib/preferences.ts";
import { useT } from "../I18nProvider.tsx";
import { MoonIcon, SunIcon } from "../icons.tsx";

const DARK_QUERY = "(prefers-color-scheme: dark)";

function subscribeToSystemTheme(onChange: () => void) {
  const query = window.matchMedia(DARK_QUERY);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

/**
 * Light/dark switch. Until it is used, the page follows the system theme (`system`). The icon follows
 * the effective theme through CSS, so it is right from the first paint; aria-checked catches up once
 * the island knows the system preference.
 */
export function ThemeSwitch({ initialTheme }: { initialTheme: Theme }) {
  const t = useT();
  const [theme, setTheme] = useState(initialTheme);
  const systemIsDark = useSyncExternalStore(
    subscribeToSystemTheme,
    () => window.matchMedia(DARK_QUERY).matches,
    () => false,
  );
  const isDark = theme === "dark" || (theme === "system" && systemIsDark);

  const toggle = () => {
    const next: Theme = isDark ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    rememberPreference(THEME_COOKIE, next);
    setTheme(next);
  };

  return (
    <button
      type="button"
      role="switch"
      aria-checked={isDark}
      aria-label={t("prefs.darkTheme")}
      title={t("prefs.darkTheme")}
      onClick={toggle}
      className="inline-flex size-9 items-center justify-center rounded-md text-fg-muted transition-colors hover:bg-surface-muted hover:text-fg"
    >
      <SunIcon className="size-4 dark:hidden" />
      <MoonIcon className="hidden size-4 dark:block" />
    </button>
  );
}
