import type { signInOptions } from "@stackgate/contract";
import type { z } from "zod";
import type { Backends } from "./backends.ts";
import { type SignInError, signInErrorOf } from "./sign-in.ts";

export type SignInOptions = z.infer<typeof signInOptions>;

const BACKEND_TIMEOUT_MS = 5_000;

/** Without an answer the page offers what always existed: password sign-in. */
const PASSWORD_ONLY: SignInOptions = { password: true, sso: null };

/** How people may sign in now (`GET /api/v0/sign-in/options`). */
export async function loadSignInOptions(backends: Pick<Backends, "fetch">): Promise<SignInOptions> {
  try {
    const response = await backends.fetch("/api/v0/sign-in/options", {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(BACKEND_TIMEOUT_MS),
    });
    if (!response.ok) return PASSWORD_ONLY;
    return (await response.json()) as SignInOptions;
  } catch {
    return PASSWORD_ONLY;
  }
}

/** What the backend needs of the browser's request: who is asking, from where (sign-in limits, origin check). */
const FORWARDED_HEADERS = [
  "origin",
  "sec-fetch-site",
  "user-agent",
  "accept-language",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
];

export type FormSignIn =
  | { signedIn: true; setCookies: string[] }
  | { signedIn: false; error: SignInError; email: string };

/**
 * The sign-in form posted without JavaScript (or before the page's script ran): signs in through the
 * backend exactly as the script would, and returns the session cookies to pass on to the browser.
 */
export async function signInWithForm(
  backends: Pick<Backends, "fetch">,
  request: Request,
): Promise<FormSignIn> {
  const form = await request.formData().catch(() => new FormData());
  const email = String(form.get("email") ?? "").trim();
  const password = String(form.get("password") ?? "");
  const headers = new Headers({ "content-type": "application/json", accept: "application/json" });
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers.get(name);
    if (value) headers.set(name, value);
  }
  let response: Response;
  try {
    response = await backends.fetch("/api/auth/sign-in/email", {
      method: "POST",
      headers,
      body: JSON.stringify({ email, password }),
      signal: AbortSignal.timeout(BACKEND_TIMEOUT_MS),
    });
  } catch {
    return { signedIn: false, error: { kind: "unreachable" }, email };
  }
  const error = await signInErrorOf(response);
  if (error) return { signedIn: false, error, email };
  return { signedIn: true, setCookies: response.headers.getSetCookie() };
}
