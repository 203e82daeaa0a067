import type { Lang } from "../../lib/i18n.ts";
import { AppProviders } from "../AppProviders.tsx";
import type { HistoryFilters } from "./filters.ts";
import { HistoryView } from "./HistoryView.tsx";

/** The history page (an island); the filters come from the address, read by the server. */
export function HistoryPage({ lang, initialFilters }: { lang: Lang; initialFilters: HistoryFilters }) {
  return (
    <AppProviders lang={lang}>
      <HistoryView initialFilters={initialFilters} />
    </AppProviders>
  );
}
