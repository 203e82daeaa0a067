import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import type { HistoryPageFilters } from "./filters.ts";
import { HistoryView } from "./HistoryView.tsx";

/** The history page (an island); the filters come from the address, read by the server. */
export function HistoryPage({
  lang,
  role,
  initialFilters,
}: IslandProps & { initialFilters: HistoryPageFilters }) {
  return (
    <AppProviders lang={lang} role={role}>
      <HistoryView initialFilters={initialFilters} />
    </AppProviders>
  );
}
