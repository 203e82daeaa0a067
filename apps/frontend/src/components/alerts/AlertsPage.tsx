import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { ChannelsSection } from "./ChannelsSection.tsx";

/** Settings › Alerts (an island, admins only): where alerts go, and what came of each. */
export function AlertsPage({ lang, role }: IslandProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <div className="flex max-w-5xl flex-col gap-6">
        <ChannelsSection />
      </div>
    </AppProviders>
  );
}
