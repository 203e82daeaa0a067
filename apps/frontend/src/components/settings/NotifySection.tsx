import type { notifySettings } from "@stackgate/contract";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { z } from "zod";
import { api, orpc } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import { Card, QueryView, retryWithoutAnswer } from "../ui/index.ts";
import { NotifyForm } from "./NotifyForm.tsx";
import { RemoveDialog } from "./RemoveDialog.tsx";

export type NotifySettings = z.infer<typeof notifySettings>;

/** Settings › Failure alerts: where ntfy alerts go, a test message, and removing the settings. */
export function NotifySection() {
  const t = useT();
  const queryClient = useQueryClient();
  const query = useQuery({ ...orpc.notify.get.queryOptions(), retry: retryWithoutAnswer });
  const [removing, setRemoving] = useState(false);
  const show = (settings: NotifySettings | null) =>
    queryClient.setQueryData(orpc.notify.get.queryKey(), { settings });

  return (
    <Card title={t("settings.notify.title")} description={t("settings.notify.description")}>
      <QueryView query={query} errorTitle={t("settings.notify.loadFailed")}>
        {({ settings }) => (
          <>
            {/* A new form once settings appear or go, so its fields start from what is saved. */}
            <NotifyForm
              key={settings ? "saved" : "none"}
              saved={settings}
              onSaved={show}
              onRemove={() => setRemoving(true)}
            />
            <RemoveDialog
              open={removing}
              title={t("settings.notify.removeTitle")}
              description={t("settings.notify.removeDescription")}
              confirmLabel={t("settings.notify.removeConfirm")}
              remove={() => api.notify.remove()}
              removedTitle={t("settings.notify.removed")}
              failedTitle={t("settings.notify.removeFailed")}
              onClose={() => setRemoving(false)}
              onRemoved={() => {
                setRemoving(false);
                show(null);
              }}
            />
          </>
        )}
      </QueryView>
    </Card>
  );
}
