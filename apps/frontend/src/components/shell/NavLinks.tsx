import { cx } from "../../lib/cx.ts";
import { useT } from "../I18nProvider.tsx";
import { isCurrentSection, NAV_ITEMS } from "./navigation.ts";

/** The five sections, as a row in the header (desktop) or a column in the menu panel (small screens). */
export function NavLinks({ pathname, layout }: { pathname: string; layout: "row" | "column" }) {
  const t = useT();
  return (
    <ul className={layout === "row" ? "flex items-center gap-0.5" : "flex flex-col gap-0.5"}>
      {NAV_ITEMS.map(({ href, labelKey, Icon }) => {
        const current = isCurrentSection(pathname, href);
        return (
          <li key={href} className="relative">
            <a
              href={href}
              aria-current={current ? "page" : undefined}
              className={cx(
                "flex items-center gap-2 rounded-md font-medium transition-colors",
                layout === "row" ? "h-8 px-2.5" : "h-10 px-3",
                current ? "bg-surface-muted text-fg" : "text-fg-muted hover:bg-surface-muted hover:text-fg",
              )}
            >
              <Icon className={cx("size-4", layout === "row" && "hidden lg:block")} />
              {t(labelKey)}
            </a>
            {current && layout === "row" && (
              // Underlines the current section along the header's bottom edge.
              <span aria-hidden="true" className="absolute inset-x-2 -bottom-2 h-0.5 rounded-full bg-fg" />
            )}
          </li>
        );
      })}
    </ul>
  );
}
