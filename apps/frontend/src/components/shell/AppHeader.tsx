import { useCallback, useId, useRef, useState } from "react";
import type { Lang } from "../../lib/i18n.ts";
import type { Theme } from "../../lib/preferences.ts";
import type { SessionUser } from "../../lib/session.ts";
import { I18nProvider, useT } from "../I18nProvider.tsx";
import { CloseIcon, MenuIcon } from "../icons.tsx";
import { PaletteButton } from "../palette/PaletteButton.tsx";
import { IconButton } from "../ui/IconButton.tsx";
import { Brand } from "./Brand.tsx";
import { LanguageSwitch } from "./LanguageSwitch.tsx";
import { NavLinks } from "./NavLinks.tsx";
import { ThemeSwitch } from "./ThemeSwitch.tsx";
import { UserMenu } from "./UserMenu.tsx";
import { useDismiss } from "./useDismiss.ts";

export interface AppHeaderProps {
  lang: Lang;
  theme: Theme;
  user: SessionUser;
  pathname: string;
}

/** The shell's top bar (an island): sections, language, theme and the account menu. */
export function AppHeader({ lang, ...props }: AppHeaderProps) {
  return (
    <I18nProvider lang={lang}>
      <HeaderBar lang={lang} {...props} />
    </I18nProvider>
  );
}

function HeaderBar({ lang, theme, user, pathname }: AppHeaderProps) {
  const t = useT();
  const [menuOpen, setMenuOpen] = useState(false);
  const headerRef = useRef<HTMLElement>(null);
  const menuButtonRef = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const closeMenu = useCallback(() => setMenuOpen(false), []);
  useDismiss(menuOpen, closeMenu, headerRef, menuButtonRef);

  return (
    <header ref={headerRef} className="sticky top-0 z-40 border-b border-line bg-surface">
      <div className="mx-auto flex h-12 max-w-screen-2xl items-center gap-2 px-3 sm:px-5">
        <IconButton
          ref={menuButtonRef}
          className="-ml-1 md:hidden"
          label={t("nav.menu")}
          aria-expanded={menuOpen}
          aria-controls={menuId}
          icon={menuOpen ? <CloseIcon className="size-5" /> : <MenuIcon className="size-5" />}
          onClick={() => setMenuOpen((open) => !open)}
        />
        <Brand href="/" />
        <nav aria-label={t("nav.label")} className="ml-4 hidden md:block">
          <NavLinks pathname={pathname} layout="row" />
        </nav>
        <div className="ml-auto flex items-center gap-1 sm:gap-1.5">
          <PaletteButton lang={lang} role={user.role} />
          <LanguageSwitch />
          <ThemeSwitch initialTheme={theme} />
          <UserMenu user={user} />
        </div>
      </div>
      <nav
        id={menuId}
        hidden={!menuOpen}
        aria-label={t("nav.label")}
        className="border-t border-line p-2 md:hidden"
      >
        <NavLinks pathname={pathname} layout="column" />
      </nav>
    </header>
  );
}
