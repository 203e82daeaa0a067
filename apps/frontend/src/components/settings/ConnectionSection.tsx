import type { connection as connectionSchema, updateStreamState } from "@stackgate/contract";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { z } from "zod";
import { api, orpc } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import {
  Button,
  Card,
  Notice,
  PlugIcon,
  QueryView,
  retryWithoutAnswer,
  StatusMark,
  TrashIcon,
} from "../ui/index.ts";
import { ConnectionForm, type SaveResult } from "./ConnectionForm.tsx";
import { RemoveDialog } from "./RemoveDialog.tsx";
import { SavedSecretsBadge } from "./SavedSecretsBadge.tsx";

type Connection = z.infer<typeof connectionSchema>;
type UpdateStream = z.infer<typeof updateStreamState>;

/** While Komodo's update stream is not connected, its state is asked for again this often. */
const STREAM_STATE_POLL_MS = 5_000;

/** Settings › Komodo connection: the one connection, how to replace or remove it, and Komodo's answer. */
export function ConnectionSection() {
  const t = useT();
  const query = useQuery({
    ...orpc.connection.get.queryOptions(),
    retry: retryWithoutAnswer,
    refetchInterval: (current) => {
      const data = current.state.data;
      return data?.connection && data.updateStream?.status !== "connected" ? STREAM_STATE_POLL_MS : false;
    },
  });
  return (
    <Card title={t("settings.connection.title")} description={t("settings.connection.description")}>
      <QueryView query={query} errorTitle={t("settings.connection.loadFailed")}>
        {({ connection, updateStream }) => (
          <ConnectionPanel connection={connection} updateStream={updateStream ?? null} />
        )}
      </QueryView>
    </Card>
  );
}

function ConnectionPanel({
  connection,
  updateStream,
}: {
  connection: Connection | null;
  updateStream: UpdateStream | null;
}) {
  const t = useT();
  const queryClient = useQueryClient();
  const [replacing, setReplacing] = useState(false);
  const [removing, setRemoving] = useState(false);
  const [lastSave, setLastSave] = useState<SaveResult | null>(null);

  const showConnection = (next: Connection | null) => {
    queryClient.setQueryData(orpc.connection.get.queryKey(), { connection: next });
    // The update stream's state of the new connection comes with the next answer.
    if (next) void queryClient.invalidateQueries({ queryKey: orpc.connection.get.queryKey() });
  };

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
          updateStream={updateStream}
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
  updateStream: UpdateStream | null;
  replacing: boolean;
  onReplace: () => void;
  onRemove: () => void;
}

function ConnectionSummary({
  connection,
  updateStream,
  replacing,
  onReplace,
  onRemove,
}: ConnectionSummaryProps) {
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
        {updateStream && (
          <>
            <dt className="text-fg-muted">{t("settings.connection.updates")}</dt>
            <dd data-testid="update-stream-state" className="min-w-0">
              <UpdateStreamMark state={updateStream} />
            </dd>
          </>
        )}
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

/**
 * Whether Komodo's update stream is connected: then deploys end the moment Komodo finishes; if not,
 * why, and that deploys ask Komodo again and again meanwhile.
 */
function UpdateStreamMark({ state }: { state: UpdateStream }) {
  const t = useT();
  const tone =
    state.status === "connected" ? "success" : state.status === "connecting" ? "progress" : "warning";
  return (
    <span className="flex min-w-0 flex-col gap-0.5">
      <StatusMark tone={tone} label={t(`settings.connection.updates.${state.status}`)} live={false} />
      {state.status !== "connected" && state.reason && (
        <span className="break-words font-mono text-[0.8125rem] text-fg-muted">{state.reason}</span>
      )}
    </span>
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
