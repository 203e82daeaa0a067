import { useCan } from "../../lib/permissions.ts";
import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { AccountSection } from "./AccountSection.tsx";
import { ApiKeysSection } from "./ApiKeysSection.tsx";
import { ConnectionSection } from "./ConnectionSection.tsx";

/**
 * The settings page (an island): for admins the Komodo connection; for everyone their own account
 * and API keys. Alerts, people and the audit log have pages of their own.
 */
export function SettingsPage({ lang, role }: IslandProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <SettingsSections />
    </AppProviders>
  );
}

function SettingsSections() {
  const isAdmin = useCan("admin");
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      {isAdmin && <ConnectionSection />}
      <AccountSection />
      <ApiKeysSection />
    </div>
  );
}
