import type { apiKeySummary } from "@stackgate/contract";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { z } from "zod";
import { api, orpc } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import { Card, Notice, QueryView, retryWithoutAnswer } from "../ui/index.ts";
import { expiresWithinAWeek } from "./ApiKeyScope.tsx";
import { ApiKeysTable } from "./ApiKeysTable.tsx";
import { CreateApiKeyForm } from "./CreateApiKeyForm.tsx";
import { RemoveDialog } from "./RemoveDialog.tsx";

export type ApiKey = z.infer<typeof apiKeySummary>;

/** Settings › API keys: one key per pipeline, shown once at creation, revoked at once on delete. */
export function ApiKeysSection() {
  const t = useT();
  const queryClient = useQueryClient();
  const query = useQuery({ ...orpc.apikeys.list.queryOptions(), retry: retryWithoutAnswer });
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: orpc.apikeys.list.key() });

  return (
    <Card title={t("settings.keys.title")} description={t("settings.keys.description")}>
      <div className="flex flex-col gap-4">
        <CreateApiKeyForm onCreated={refresh} />
        <QueryView query={query} errorTitle={t("settings.keys.loadFailed")}>
          {({ keys }) => {
            const now = Date.now();
            const expiring = keys.filter((key) => expiresWithinAWeek(key.expiresAt, now));
            return (
              <div className="flex flex-col gap-3">
                {expiring.length > 0 && (
                  <Notice tone="warning" title={t("settings.keys.expiringTitle")}>
                    {t("settings.keys.expiringList", { names: expiring.map((key) => key.name).join(", ") })}
                  </Notice>
                )}
                <ApiKeysTable keys={keys} now={now} onDelete={setDeleting} />
              </div>
            );
          }}
        </QueryView>
      </div>
      {deleting && (
        <RemoveDialog
          open
          title={t("settings.keys.deleteTitle", { name: deleting.name })}
          description={t("settings.keys.deleteDescription")}
          confirmLabel={t("settings.keys.deleteConfirm")}
          remove={() => api.apikeys.remove({ id: deleting.id })}
          removedTitle={t("settings.keys.deleted", { name: deleting.name })}
          failedTitle={t("settings.keys.deleteFailed")}
          onClose={() => setDeleting(null)}
          onRemoved={() => {
            setDeleting(null);
            void refresh();
          }}
        />
      )}
    </Card>
  );
}
