import type { Role } from "@stackgate/contract";
import { QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { Lang } from "../lib/i18n.ts";
import { RoleProvider } from "../lib/permissions.ts";
import { getQueryClient } from "../lib/query-client.ts";
import { I18nProvider } from "./I18nProvider.tsx";

/** Every island's own props come on top of these, passed from Astro.locals by its page. */
export interface IslandProps {
  lang: Lang;
  /** The signed-in person's role: `Astro.locals.user.role`. */
  role: Role;
}

/** The root of every data island: translations, the signed-in person's role and the page's shared query cache. */
export function AppProviders({ lang, role, children }: IslandProps & { children: ReactNode }) {
  return (
    <I18nProvider lang={lang}>
      <RoleProvider role={role}>
        <QueryClientProvider client={getQueryClient()}>{children}</QueryClientProvider>
      </RoleProvider>
    </I18nProvider>
  );
}
