import type { MessageKey, Translate } from "./i18n.ts";

/** What went wrong with a password sign-in, for the form's inline message (island and server alike). */
export type SignInError =
  | { kind: "wrong-credentials" | "unreachable" | "password-off" }
  | { kind: "too-many-attempts"; retryAfterSeconds: number | null }
  | { kind: "failed"; status: number };

/** The status the sign-in page answers a failed form post with. */
export function statusOf(error: SignInError): number {
  switch (error.kind) {
    case "wrong-credentials":
      return 401;
    case "too-many-attempts":
      return 429;
    case "password-off":
      return 403;
    case "unreachable":
      return 503;
    case "failed":
      return error.status;
  }
}

/** Reads the answer to `POST /api/auth/sign-in/email` (from the backend or the gateway): null when signed in. */
export async function signInErrorOf(response: Response): Promise<SignInError | null> {
  if (response.ok) return null;
  if (response.status === 401) return { kind: "wrong-credentials" };
  if (response.status === 429) {
    const seconds = Number(response.headers.get("retry-after"));
    return {
      kind: "too-many-attempts",
      retryAfterSeconds: Number.isFinite(seconds) && seconds > 0 ? seconds : null,
    };
  }
  if (response.status === 403) {
    const body = (await response.json().catch(() => null)) as { code?: unknown } | null;
    if (body?.code === "PASSWORD_SIGN_IN_OFF") return { kind: "password-off" };
  }
  // The gateway answers 502/503/504 when the backend behind it is down or slow.
  if (response.status >= 502 && response.status <= 504) return { kind: "unreachable" };
  return { kind: "failed", status: response.status };
}

export function describeSignInError(error: SignInError, t: Translate): string {
  switch (error.kind) {
    case "wrong-credentials":
      return t("signIn.wrongCredentials");
    case "too-many-attempts":
      return error.retryAfterSeconds
        ? t("signIn.tryAgainIn", { minutes: Math.ceil(error.retryAfterSeconds / 60) })
        : t("signIn.tooManyAttempts");
    case "password-off":
      return t("signIn.passwordOffTitle");
    case "unreachable":
      return t("signIn.unreachable");
    case "failed":
      return t("signIn.failed", { status: error.status });
  }
}

/** Why a single sign-on came back without a session (`/sign-in?sso_error=`), as the backend names it. */
export const SSO_ERRORS = [
  "no-role",
  "unverified-email",
  "disabled",
  "no-email",
  "invitation-invalid",
  "expired",
  "provider-refused",
  "invalid-response",
  "unavailable",
] as const;
export type SsoError = (typeof SSO_ERRORS)[number];

export function readSsoError(value: string | null): SsoError | null {
  return SSO_ERRORS.includes(value as SsoError) ? (value as SsoError) : null;
}

export const ssoErrorMessage = (error: SsoError) => `signIn.sso.error.${error}` as const satisfies MessageKey;
