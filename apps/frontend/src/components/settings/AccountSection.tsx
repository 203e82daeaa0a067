import type { me as meSchema } from "@stackgate/contract";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import type { z } from "zod";
import { announceOwnName } from "../../lib/account-name.ts";
import { api, orpc } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import {
  Badge,
  Button,
  Card,
  Notice,
  QueryView,
  requestMessage,
  retryWithoutAnswer,
  TextField,
} from "../ui/index.ts";
import { useHydrated } from "../useHydrated.ts";
import { useWriteOnlySubmit } from "./useWriteOnlySubmit.ts";

type Me = z.infer<typeof meSchema>;

/** Settings › Your account, for every role: the name the history shows, and the password. */
export function AccountSection() {
  const t = useT();
  const query = useQuery({ ...orpc.me.get.queryOptions(), retry: retryWithoutAnswer });
  return (
    <Card title={t("me.title")} description={t("me.description")}>
      <QueryView query={query} errorTitle={t("me.loadFailed")}>
        {(me) => (
          <div className="flex flex-col gap-5">
            <dl className="grid grid-cols-[auto_minmax(0,1fr)] items-baseline gap-x-6 gap-y-2 text-sm">
              <dt className="text-fg-muted">{t("me.email")}</dt>
              <dd className="min-w-0 break-all">{me.email}</dd>
              <dt className="text-fg-muted">{t("me.role")}</dt>
              <dd className="flex flex-wrap items-center gap-2">
                <Badge>{t(`role.${me.role}`)}</Badge>
                {me.sso && <span className="text-xs text-fg-muted">{t("people.sso")}</span>}
              </dd>
            </dl>
            <NameForm me={me} />
            {me.sso ? <p className="text-sm text-fg-muted">{t("me.ssoPassword")}</p> : <PasswordForm />}
          </div>
        )}
      </QueryView>
    </Card>
  );
}

function NameForm({ me }: { me: Me }) {
  const t = useT();
  const hydrated = useHydrated();
  const queryClient = useQueryClient();
  const save = useWriteOnlySubmit(api.me.update);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (save.pending) return;
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    const saved = await save.submit({ name });
    if (!saved) return;
    queryClient.setQueryData(orpc.me.get.queryKey(), saved);
    announceOwnName(saved.name);
  };

  return (
    <form onSubmit={submit} aria-label={t("me.nameLabel")} className="flex flex-col gap-2">
      <div className="flex flex-wrap items-end gap-2">
        <TextField
          label={t("me.name")}
          name="name"
          defaultValue={me.name}
          required
          maxLength={100}
          autoComplete="name"
          className="min-w-48 flex-1 sm:max-w-sm"
        />
        <Button type="submit" loading={save.pending} disabled={!hydrated}>
          {t("me.saveName")}
        </Button>
      </div>
      <div role="status" className="empty:hidden">
        {save.state.status === "done" && (
          <p className="text-sm text-success-text">{t("me.nameSaved", { name: save.state.result.name })}</p>
        )}
      </div>
      {save.state.status === "failed" && (
        <Notice role="alert" tone="danger" title={t("me.nameFailed")}>
          {requestMessage(save.state.error, t)}
        </Notice>
      )}
    </form>
  );
}

function PasswordForm() {
  const t = useT();
  const hydrated = useHydrated();
  // The passwords are read from the form when sent and never kept in state.
  const change = useWriteOnlySubmit(api.me.changePassword);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (change.pending) return;
    const form = event.currentTarget;
    const fields = new FormData(form);
    const changed = await change.submit({
      currentPassword: String(fields.get("currentPassword") ?? ""),
      newPassword: String(fields.get("newPassword") ?? ""),
    });
    if (changed) form.reset();
  };

  return (
    <form onSubmit={submit} aria-label={t("me.passwordLabel")} className="flex flex-col gap-2">
      <h3 className="text-sm font-semibold">{t("me.passwordLabel")}</h3>
      <div className="grid gap-3 sm:grid-cols-2 sm:items-start">
        <TextField
          type="password"
          label={t("me.currentPassword")}
          name="currentPassword"
          required
          autoComplete="current-password"
        />
        <TextField
          type="password"
          label={t("me.newPassword")}
          hint={t("me.newPasswordHint")}
          name="newPassword"
          required
          minLength={12}
          maxLength={128}
          autoComplete="new-password"
        />
      </div>
      <div>
        <Button type="submit" loading={change.pending} disabled={!hydrated}>
          {t("me.changePassword")}
        </Button>
      </div>
      <div role="status" className="empty:hidden">
        {change.state.status === "done" && (
          <p className="text-sm text-success-text">{t("me.passwordChanged")}</p>
        )}
      </div>
      {change.state.status === "failed" && (
        <Notice role="alert" tone="danger" title={t("me.passwordFailed")}>
          {requestMessage(change.state.error, t)}
        </Notice>
      )}
    </form>
  );
}
