import type { connection as connectionSchema } from "@stackgate/contract";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { z } from "zod";
import { api, orpc } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import { Button, Card, Notice, PlugIcon, QueryView, retryWithoutAnswer, TrashIcon } from "../ui/index.ts";
import { ConnectionForm, type SaveResult } from "./ConnectionForm.tsx";
import { RemoveDialog } from "./RemoveDialog.tsx";
import { SavedSecretsBadge } from "./SavedSecretsBadge.tsx";

type Connection = z.infer<typeof connectionSchema>;

/** Settings › Komodo connection: the one connection, how to replace or remove it, and Komodo's answer. */
export function ConnectionSection() {
  const t = useT();
  const query = useQuery({ ...orpc.connection.get.queryOptions(), retry: retryWithoutAnswer });
  return (
    <Card title={t("settings.connection.title")} description={t("settings.connection.description")}>
      <QueryView query={query} errorTitle={t("settings.connection.loadFailed")}>
        {({ connection }) => <ConnectionPanel connection={connection} />}
      </QueryView>
    </Card>
  );
}

function ConnectionPanel({ connection }: { connection: Connection | null }) {
  const t = useT();
  const queryClient = useQueryClient();
  const [replacing, setReplacing] = useState(false);
  const [removing, setRemoving] = useState(false);
  const [lastSave, setLastSave] = useState<SaveResult | null>(null);

  const showConnection = (next: Connection | null) =>
    queryClient.setQueryData(orpc.connection.get.queryKey(), { connection: next });

  const saved = (result: SaveResult) => {
    showConnection(result.connection);
    setLastSave(result);
    setReplacing(false);
  };

  return (
    <div className="flex flex-col gap-4">
      {connection ? (
        <ConnectionSummary
          connection={connection}
          onReplace={() => setReplacing(true)}
          onRemove={() => setRemoving(true)}
          replacing={replacing}
        />
      ) : (
        <Notice tone="neutral" title={t("settings.connection.none")}>
          {t("settings.connection.noneHint")}
        </Notice>
      )}
      {lastSave && !replacing && <KomodoAnswer result={lastSave} />}
      {(!connection || replacing) && (
        <ConnectionForm
          current={connection}
          onSaved={saved}
          onCancel={connection ? () => setReplacing(false) : undefined}
        />
      )}
      {connection && (
        <RemoveDialog
          open={removing}
          title={t("settings.connection.removeTitle", { name: connection.name })}
          description={t("settings.connection.removeDescription", { url: connection.url })}
          confirmLabel={t("settings.connection.removeConfirm")}
          remove={() => api.connection.remove({ name: connection.name })}
          removedTitle={t("settings.connection.removed", { name: connection.name })}
          failedTitle={t("settings.connection.removeFailed")}
          onClose={() => setRemoving(false)}
          onRemoved={() => {
            setRemoving(false);
            setLastSave(null);
            setReplacing(false);
            showConnection(null);
          }}
        />
      )}
    </div>
  );
}

interface ConnectionSummaryProps {
  connection: Connection;
  replacing: boolean;
  onReplace: () => void;
  onRemove: () => void;
}

function ConnectionSummary({ connection, replacing, onReplace, onRemove }: ConnectionSummaryProps) {
  const t = useT();
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <dl className="grid min-w-0 grid-cols-[auto_minmax(0,1fr)] items-center gap-x-4 gap-y-1.5">
        <dt className="text-fg-muted">{t("settings.connection.name")}</dt>
        <dd className="truncate font-medium">{connection.name}</dd>
        <dt className="text-fg-muted">{t("settings.connection.url")}</dt>
        <dd className="truncate font-mono text-[0.8125rem]" title={connection.url}>
          {connection.url}
        </dd>
        <dt className="text-fg-muted">{t("settings.connection.credentials")}</dt>
        <dd>
          <SavedSecretsBadge label={t("settings.connection.credentialsSaved")} />
        </dd>
      </dl>
      {!replacing && (
        <div className="flex flex-wrap gap-2">
          <Button onClick={onReplace} icon={<PlugIcon />}>
            {t("settings.connection.replace")}
          </Button>
          <Button variant="ghost" onClick={onRemove} icon={<TrashIcon />}>
            {t("settings.connection.remove")}
          </Button>
        </div>
      )}
    </div>
  );
}

/** What Komodo said when the connection was saved: its version, or why it did not answer. */
function KomodoAnswer({ result }: { result: SaveResult }) {
  const t = useT();
  if (result.reachable) {
    return (
      <Notice role="status" tone="success" title={t("settings.connection.reachable")}>
        {result.version
          ? t("settings.connection.version", { version: result.version })
          : t("settings.connection.versionUnknown")}
      </Notice>
    );
  }
  return (
    <Notice role="status" tone="warning" title={t("settings.connection.unreachable")}>
      <p>{t("settings.connection.unreachableHint")}</p>
      {result.error && <p className="mt-1 font-mono text-[0.8125rem] text-fg">{result.error}</p>}
    </Notice>
  );
}
