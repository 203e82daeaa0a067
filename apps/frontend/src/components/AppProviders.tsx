import "../lib/zod-without-eval.ts";
import { QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { Lang } from "../lib/i18n.ts";
import { getQueryClient } from "../lib/query-client.ts";
import { I18nProvider } from "./I18nProvider.tsx";

/** The root of every data island: translations and the page's shared query cache. */
export function AppProviders({ lang, children }: { lang: Lang; children: ReactNode }) {
  return (
    <I18nProvider lang={lang}>
      <QueryClientProvider client={getQueryClient()}>{children}</QueryClientProvider>
    </I18nProvider>
  );
}
