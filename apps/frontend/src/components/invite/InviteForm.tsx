import { type FormEvent, useId, useState } from "react";
import { api } from "../../lib/api.ts";
import type { Lang } from "../../lib/i18n.ts";
import type { SignInChoices } from "../../lib/server-invitation.ts";
import { I18nProvider, useT } from "../I18nProvider.tsx";
import { buttonClasses } from "../ui/Button.tsx";
import { Button, Notice, requestMessage, TextField } from "../ui/index.ts";
import { useHydrated } from "../useHydrated.ts";

export interface InviteFormProps {
  lang: Lang;
  token: string;
  /** The invited address, as the account's email (it cannot be changed here). */
  email: string;
  choices: SignInChoices;
}

/** Accepting an invitation (an island): a name and a password, or single sign-on when there is one. */
export function InviteForm({ lang, ...props }: InviteFormProps) {
  return (
    <I18nProvider lang={lang}>
      <InviteFields {...props} />
    </I18nProvider>
  );
}

function InviteFields({ token, email, choices }: Omit<InviteFormProps, "lang">) {
  const t = useT();
  const hydrated = useHydrated();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const errorId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const fields = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      await api.invitations.accept({
        token,
        name: String(fields.get("name") ?? ""),
        password: String(fields.get("password") ?? ""),
      });
      // The answer set the session cookie: the dashboard opens signed in.
      window.location.assign("/");
    } catch (failure) {
      setError(failure);
      setPending(false);
    }
  };

  return (
    <div className="flex flex-col gap-4">
      {choices.password && (
        // Disabled until hydration, so it never submits natively; method="post" keeps the password out of the URL.
        <form
          method="post"
          onSubmit={submit}
          className="flex flex-col gap-4"
          aria-describedby={error ? errorId : undefined}
        >
          {/* Lets password managers save the new password under the right account. */}
          <input type="email" name="email" value={email} autoComplete="username" readOnly hidden />
          <TextField label={t("invitePage.name")} name="name" required maxLength={100} autoComplete="name" />
          <TextField
            type="password"
            label={t("invitePage.password")}
            hint={t("invitePage.passwordHint")}
            name="password"
            required
            minLength={12}
            maxLength={128}
            autoComplete="new-password"
          />
          <div id={errorId} role="alert" className="empty:hidden">
            {error !== null && (
              <Notice tone="danger" title={t("invitePage.failed")}>
                {requestMessage(error, t)}
              </Notice>
            )}
          </div>
          <Button type="submit" variant="primary" loading={pending} disabled={!hydrated} className="w-full">
            {pending ? t("invitePage.submitting") : t("invitePage.submit")}
          </Button>
        </form>
      )}
      {choices.password && choices.sso && (
        <p className="flex items-center gap-3 text-xs text-fg-muted before:h-px before:flex-1 before:bg-line after:h-px after:flex-1 after:bg-line">
          {t("invitePage.or")}
        </p>
      )}
      {choices.sso && (
        <a href={choices.sso.href} className={`${buttonClasses("secondary", "md")} w-full`}>
          {t("invitePage.sso", { name: choices.sso.name })}
        </a>
      )}
    </div>
  );
}
