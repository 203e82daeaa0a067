import { type FormEvent, useId, useRef, useState } from "react";
import type { Lang, Translate } from "../lib/i18n.ts";
import { I18nProvider, useT } from "./I18nProvider.tsx";
import { Button } from "./ui/Button.tsx";
import { useHydrated } from "./useHydrated.ts";

type SignInError =
  | { kind: "wrong-credentials" | "too-many-attempts" | "unreachable" }
  | { kind: "failed"; status: number };

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
  if (response.ok) return null;
  if (response.status === 401) return { kind: "wrong-credentials" };
  if (response.status === 429) return { kind: "too-many-attempts" };
  // The gateway answers 502/503/504 when the backend behind it is down or slow.
  if (response.status >= 502 && response.status <= 504) return { kind: "unreachable" };
  return { kind: "failed", status: response.status };
}

function describe(error: SignInError, t: Translate): string {
  switch (error.kind) {
    case "wrong-credentials":
      return t("signIn.wrongCredentials");
    case "too-many-attempts":
      return t("signIn.tooManyAttempts");
    case "unreachable":
      return t("signIn.unreachable");
    case "failed":
      return t("signIn.failed", { status: error.status });
  }
}

export interface SignInFormProps {
  lang: Lang;
  /** Where to go once signed in: already checked to be a path on this site. */
  next: string;
}

/** The sign-in form (an island). */
export function SignInForm({ lang, next }: SignInFormProps) {
  return (
    <I18nProvider lang={lang}>
      <SignInFields next={next} />
    </I18nProvider>
  );
}

const inputClasses =
  "h-9 w-full rounded-md border border-control bg-surface px-3 text-sm text-fg placeholder:text-fg-muted aria-invalid:border-danger";

function SignInFields({ next }: { next: string }) {
  const t = useT();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<SignInError | null>(null);
  const errorId = useId();
  const passwordRef = useRef<HTMLInputElement>(null);
  const hydrated = useHydrated();

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
  // The submit button stays disabled until hydration, so the form can never submit natively; method="post"
  // is a second guard that would keep the password out of the URL.
  return (
    <form
      method="post"
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
            {describe(error, t)}
          </p>
        )}
      </div>
      <Button type="submit" variant="primary" loading={pending} disabled={!hydrated} className="w-full">
        {pending ? t("signIn.submitting") : t("signIn.submit")}
      </Button>
    </form>
  );
}
