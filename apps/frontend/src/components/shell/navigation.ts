import type { PlainMessageKey } from "../../lib/i18n.ts";
import {
  HistoryIcon,
  type IconProps,
  OverviewIcon,
  SecurityIcon,
  SettingsIcon,
  StacksIcon,
} from "../icons.tsx";

export interface NavItem {
  href: string;
  labelKey: PlainMessageKey;
  Icon: (props: IconProps) => React.JSX.Element;
  /** Other pages of the section: a run's page belongs to the history. */
  subPages?: readonly string[];
}

export const NAV_ITEMS: readonly NavItem[] = [
  { href: "/", labelKey: "nav.overview", Icon: OverviewIcon },
  { href: "/stacks", labelKey: "nav.stacks", Icon: StacksIcon },
  { href: "/history", labelKey: "nav.history", Icon: HistoryIcon, subPages: ["/runs"] },
  { href: "/security", labelKey: "nav.security", Icon: SecurityIcon },
  { href: "/settings", labelKey: "nav.settings", Icon: SettingsIcon },
];

/** A section stays marked on its sub-pages (/stacks/web marks Stacks); the overview only on "/". */
export function isCurrentSection(pathname: string, href: string): boolean {
  if (href === "/") return pathname === "/";
  const subPages = NAV_ITEMS.find((item) => item.href === href)?.subPages ?? [];
  return [href, ...subPages].some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}
