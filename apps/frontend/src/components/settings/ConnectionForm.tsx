import { type FormEvent, useState } from "react";
import { api } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import { Button, Notice, requestMessage, TextField } from "../ui/index.ts";
import { useHydrated } from "../useHydrated.ts";
import { useWriteOnlySubmit } from "./useWriteOnlySubmit.ts";

export type SaveResult = Awaited<ReturnType<typeof api.connection.save>>;

interface ConnectionFormProps {
  /** The connection being replaced: its name and URL are offered again, never its key and secret. */
  current: { name: string; url: string } | null;
  onSaved: (result: SaveResult) => void;
  /** Shown as a Cancel button when there is a connection to go back to. */
  onCancel?: () => void;
}

const EMPTY_SECRETS = { key: "", secret: "" };

export function ConnectionForm({ current, onSaved, onCancel }: ConnectionFormProps) {
  const t = useT();
  const hydrated = useHydrated();
  const [name, setName] = useState(current?.name ?? "");
  const [url, setUrl] = useState(current?.url ?? "");
  const [secrets, setSecrets] = useState(EMPTY_SECRETS);
  const save = useWriteOnlySubmit(api.connection.save);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (save.pending) return;
    const input = { name, url, ...secrets };
    // Key and secret leave the browser's memory with the request, whatever the answer.
    setSecrets(EMPTY_SECRETS);
    const result = await save.submit(input);
    if (result) onSaved(result);
  };

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label={t("settings.connection.formLabel")}>
      {current && <p className="text-sm text-fg-muted">{t("settings.connection.replaceHint")}</p>}
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label={t("settings.connection.name")}
          hint={t("settings.connection.nameHint")}
          value={name}
          onChange={(event) => setName(event.target.value)}
          required
          maxLength={64}
          autoComplete="off"
        />
        <TextField
          label={t("settings.connection.url")}
          hint={t("settings.connection.urlHint")}
          type="url"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          required
          autoComplete="off"
          placeholder="https://komodo.example.com"
          inputClassName="font-mono"
        />
        <TextField
          label={t("settings.connection.key")}
          type="password"
          value={secrets.key}
          onChange={(event) => setSecrets({ ...secrets, key: event.target.value })}
          required
          autoComplete="off"
          spellCheck={false}
        />
        <TextField
          label={t("settings.connection.secret")}
          type="password"
          value={secrets.secret}
          onChange={(event) => setSecrets({ ...secrets, secret: event.target.value })}
          required
          autoComplete="off"
          spellCheck={false}
        />
      </div>
      <p className="text-xs text-fg-muted">{t("settings.connection.secretsHint")}</p>
      {save.state.status === "failed" && (
        <Notice role="alert" tone="danger" title={t("settings.connection.saveFailed")}>
          {requestMessage(save.state.error, t)}
        </Notice>
      )}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary" loading={save.pending} disabled={!hydrated}>
          {save.pending ? t("settings.connection.saving") : t("settings.connection.save")}
        </Button>
        {onCancel && (
          <Button onClick={onCancel} disabled={save.pending}>
            {t("ui.cancel")}
          </Button>
        )}
      </div>
    </form>
  );
}
