import type { Role } from "@stackgate/contract";
import { useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { api, orpc } from "../../lib/api.ts";
import { useI18n } from "../I18nProvider.tsx";
import { useWriteOnlySubmit } from "../settings/useWriteOnlySubmit.ts";
import {
  Button,
  Card,
  CopyButton,
  Dialog,
  Notice,
  PlusIcon,
  requestMessage,
  SelectField,
  TextField,
} from "../ui/index.ts";
import { useHydrated } from "../useHydrated.ts";
import { ROLES, roleName } from "./model.ts";

/** Invites an email address with a role, then shows the one-time link once. */
export function InviteSection() {
  const { t } = useI18n();
  const hydrated = useHydrated();
  const queryClient = useQueryClient();
  // The link (it holds the token) lives only in this state, from the answer until the dialog closes.
  const invite = useWriteOnlySubmit(async (input: { email: string; role: Role }) => ({
    ...(await api.users.invite(input)),
    email: input.email,
  }));

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (invite.pending) return;
    const form = event.currentTarget;
    const fields = new FormData(form);
    const email = String(fields.get("email") ?? "");
    const created = await invite.submit({ email, role: String(fields.get("role")) as Role });
    if (!created) return;
    form.reset();
    void queryClient.invalidateQueries({ queryKey: orpc.users.invitations.key() });
  };

  return (
    <Card title={t("invite.title")} description={t("invite.description")}>
      <form onSubmit={submit} aria-label={t("invite.formLabel")} className="flex flex-col gap-3">
        <div className="flex flex-wrap items-end gap-2">
          <TextField
            type="email"
            label={t("invite.email")}
            name="email"
            required
            maxLength={254}
            autoComplete="off"
            className="min-w-56 flex-1 sm:max-w-sm"
          />
          <SelectField label={t("invite.role")} name="role" defaultValue="deployer" className="w-44">
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {roleName(role, t)}
              </option>
            ))}
          </SelectField>
          <Button type="submit" loading={invite.pending} disabled={!hydrated} icon={<PlusIcon />}>
            {t("invite.submit")}
          </Button>
        </div>
        <ul className="grid gap-x-4 gap-y-0.5 text-xs text-fg-muted sm:grid-cols-3">
          {ROLES.map((role) => (
            <li key={role}>
              <span className="font-medium text-fg">{roleName(role, t)}</span>: {t(`role.${role}.hint`)}
            </li>
          ))}
        </ul>
        {invite.state.status === "failed" && (
          <Notice role="alert" tone="danger" title={t("invite.failed")}>
            {requestMessage(invite.state.error, t)}
          </Notice>
        )}
      </form>
      <InvitationLinkDialog
        created={invite.state.status === "done" ? invite.state.result : null}
        onClose={invite.clear}
      />
    </Card>
  );
}

interface InvitationLinkDialogProps {
  created: { email: string; url: string; expiresAt: Date } | null;
  onClose: () => void;
}

/** The one and only time an invitation link is shown. */
function InvitationLinkDialog({ created, onClose }: InvitationLinkDialogProps) {
  const { t, lang } = useI18n();
  return (
    <Dialog
      open={created !== null}
      onClose={onClose}
      title={created ? t("invite.createdTitle", { email: created.email }) : ""}
      footer={
        <Button variant="primary" onClick={onClose}>
          {t("invite.done")}
        </Button>
      }
    >
      {created && (
        <div className="flex flex-col gap-3">
          <Notice tone="warning" title={t("invite.onceWarning")}>
            {t("invite.onceHint")}
          </Notice>
          <span className="text-xs font-medium text-fg-muted">{t("invite.link")}</span>
          <div className="-mt-2 flex items-start gap-1 rounded-md border border-line bg-surface-muted p-2">
            <code className="min-w-0 flex-1 break-all px-1 py-0.5 font-mono text-[0.8125rem]">
              {created.url}
            </code>
            <CopyButton value={created.url} label={t("invite.copy")} />
          </div>
          <p className="text-xs text-fg-muted">
            {t("invite.expires", {
              date: new Intl.DateTimeFormat(lang, { dateStyle: "long", timeStyle: "short" }).format(
                created.expiresAt,
              ),
            })}
          </p>
        </div>
      )}
    </Dialog>
  );
}
