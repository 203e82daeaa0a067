import { type FormEvent, useId, useRef, useState } from "react";
import type { Lang } from "../lib/i18n.ts";
import { describeSignInError, type SignInError, signInErrorOf } from "../lib/sign-in.ts";
import { I18nProvider, useT } from "./I18nProvider.tsx";
import { Button } from "./ui/Button.tsx";

/** Resolves to null when signed in (the session cookie is set), or to what went wrong. */
async function signIn(email: string, password: string): Promise<SignInError | null> {
  let response: Response;
  try {
    response = await fetch("/api/auth/sign-in/email", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ email, password }),
    });
  } catch {
    return { kind: "unreachable" };
  }
  return signInErrorOf(response);
}

export interface SignInFormProps {
  lang: Lang;
  /** Where to go once signed in: already checked to be a path on this site. */
  next: string;
  /** After a form post without the script: the email typed and what went wrong. */
  initialEmail?: string;
  initialError?: SignInError | null;
}

/**
 * The sign-in form (an island). It is a real form that posts to the sign-in page, which signs in
 * through the backend: so it works before its script loads and without JavaScript. Once hydrated it
 * signs in with fetch instead; what was typed stays, as the inputs are uncontrolled.
 */
export function SignInForm({ lang, next, initialEmail = "", initialError = null }: SignInFormProps) {
  return (
    <I18nProvider lang={lang}>
      <SignInFields next={next} initialEmail={initialEmail} initialError={initialError} />
    </I18nProvider>
  );
}

const inputClasses =
  "h-9 w-full rounded-md border border-control bg-surface px-3 text-sm text-fg placeholder:text-fg-muted aria-invalid:border-danger";

function SignInFields({
  next,
  initialEmail,
  initialError,
}: {
  next: string;
  initialEmail: string;
  initialError: SignInError | null;
}) {
  const t = useT();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<SignInError | null>(initialError);
  const errorId = useId();
  const passwordRef = useRef<HTMLInputElement>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const failure = await signIn(String(form.get("email") ?? ""), String(form.get("password") ?? ""));
    if (!failure) {
      window.location.assign(next);
      return; // stays "pending" while the next page loads
    }
    setError(failure);
    setPending(false);
    if (failure.kind === "wrong-credentials") {
      passwordRef.current?.focus();
      passwordRef.current?.select();
    }
  };

  const invalidCredentials = error?.kind === "wrong-credentials";
  return (
    <form
      method="post"
      action={`/sign-in?next=${encodeURIComponent(next)}`}
      onSubmit={submit}
      className="flex flex-col gap-4"
      aria-describedby={error ? errorId : undefined}
    >
      <div className="flex flex-col gap-1.5">
        <label htmlFor="sign-in-email" className="text-sm font-medium">
          {t("signIn.email")}
        </label>
        <input
          id="sign-in-email"
          name="email"
          type="email"
          autoComplete="username"
          defaultValue={initialEmail}
          required
          aria-invalid={invalidCredentials || undefined}
          className={inputClasses}
        />
      </div>
      <div className="flex flex-col gap-1.5">
        <label htmlFor="sign-in-password" className="text-sm font-medium">
          {t("signIn.password")}
        </label>
        <input
          ref={passwordRef}
          id="sign-in-password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          aria-invalid={invalidCredentials || undefined}
          className={inputClasses}
        />
      </div>
      <div id={errorId} role="alert" className="empty:hidden">
        {error && (
          <p className="rounded-md border border-danger/40 bg-danger-soft px-3 py-2 text-sm text-danger-text">
            {describeSignInError(error, t)}
          </p>
        )}
      </div>
      <Button type="submit" variant="primary" loading={pending} className="w-full">
        {pending ? t("signIn.submitting") : t("signIn.submit")}
      </Button>
    </form>
  );
}
