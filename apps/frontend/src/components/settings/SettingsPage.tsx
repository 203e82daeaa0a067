import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { ApiKeysSection } from "./ApiKeysSection.tsx";
import { ConnectionSection } from "./ConnectionSection.tsx";
import { NotifySection } from "./NotifySection.tsx";

/** The settings page (an island): Komodo connection, failure alerts and API keys. */
export function SettingsPage({ lang, role }: IslandProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <div className="flex max-w-4xl flex-col gap-6">
        <ConnectionSection />
        <NotifySection />
        <ApiKeysSection />
      </div>
    </AppProviders>
  );
}
