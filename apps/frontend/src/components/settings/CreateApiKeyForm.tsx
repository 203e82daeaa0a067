import { type FormEvent, useId, useState } from "react";
import { api } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import { Button, Notice, PlusIcon, requestMessage, TextField } from "../ui/index.ts";
import { useHydrated } from "../useHydrated.ts";
import { fullScopeDraft, ScopeFields, scopeOf } from "./ApiKeyScope.tsx";
import { NewApiKeyDialog } from "./NewApiKeyDialog.tsx";
import { useWriteOnlySubmit } from "./useWriteOnlySubmit.ts";

/** Names and creates a key, then shows the full key once. */
export function CreateApiKeyForm({ onCreated }: { onCreated: () => void }) {
  const t = useT();
  const hydrated = useHydrated();
  // Name and expiry are read from the form when it is sent, never held in state: what a person
  // typed before the page became interactive is kept, since hydration has no value to replace it with.
  const [scope, setScope] = useState(fullScopeDraft);
  const hintId = useId();
  // The full key lives only in this state, from the answer until the dialog is closed.
  const create = useWriteOnlySubmit(api.apikeys.create);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (create.pending) return;
    const form = event.currentTarget;
    const fields = new FormData(form);
    const expiry = String(fields.get("expiry") ?? "");
    const created = await create.submit({
      name: String(fields.get("name") ?? ""),
      scope: scopeOf(scope),
      // The end of the chosen day, where the person is.
      expiresAt: expiry ? new Date(`${expiry}T23:59:59.999`).toISOString() : undefined,
    });
    if (!created) return;
    form.reset();
    setScope(fullScopeDraft());
    onCreated();
  };

  return (
    <>
      <form onSubmit={submit} className="flex flex-col gap-2" aria-label={t("settings.keys.createLabel")}>
        <div className="flex flex-wrap items-end gap-2">
          <TextField
            label={t("settings.keys.newName")}
            aria-describedby={hintId}
            name="name"
            required
            maxLength={64}
            autoComplete="off"
            className="min-w-48 flex-1 sm:max-w-sm"
          />
          <TextField
            type="date"
            label={t("settings.keys.expiry")}
            title={t("settings.keys.expiryHint")}
            name="expiry"
            min={new Date().toISOString().slice(0, 10)}
            className="w-44"
          />
          <Button type="submit" loading={create.pending} disabled={!hydrated} icon={<PlusIcon />}>
            {t("settings.keys.create")}
          </Button>
        </div>
        <p id={hintId} className="text-xs text-fg-muted">
          {t("settings.keys.newNameHint")} {t("settings.keys.expiryHint")}
        </p>
        <ScopeFields draft={scope} onChange={setScope} />
        {create.state.status === "failed" && (
          <Notice role="alert" tone="danger" title={t("settings.keys.createFailed")}>
            {requestMessage(create.state.error, t)}
          </Notice>
        )}
      </form>
      <NewApiKeyDialog
        created={create.state.status === "done" ? create.state.result : null}
        onClose={create.clear}
      />
    </>
  );
}
