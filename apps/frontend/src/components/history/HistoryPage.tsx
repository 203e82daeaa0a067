import type { Lang } from "../../lib/i18n.ts";
import { AppProviders } from "../AppProviders.tsx";
import type { HistoryPageFilters } from "./filters.ts";
import { HistoryView } from "./HistoryView.tsx";

/** The history page (an island); the filters come from the address, read by the server. */
export function HistoryPage({ lang, initialFilters }: { lang: Lang; initialFilters: HistoryPageFilters }) {
  return (
    <AppProviders lang={lang}>
      <HistoryView initialFilters={initialFilters} />
    </AppProviders>
  );
}
