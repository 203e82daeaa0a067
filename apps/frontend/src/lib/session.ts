import { type Role, role as roleSchema } from "@stackgate/contract";
import { type Backends, socketErrorCode } from "./backends.ts";

export interface SessionUser {
  id: string;
  name: string;
  email: string;
  role: Role;
}

export type SessionLookup =
  | { status: "signed-in"; user: SessionUser; setCookies: string[] }
  | { status: "signed-out"; setCookies: string[] }
  | { status: "unavailable"; reason: string };

/** Long enough for a busy backend, short enough that a dead one gives an error page, not a hang. */
const SESSION_TIMEOUT_MS = 3_000;

/**
 * Asks the backend (Better Auth) whose session the request's cookies carry. `setCookies` must be passed
 * on to the browser: Better Auth refreshes a session's expiry through this very call.
 */
export async function lookUpSession(
  backends: Pick<Backends, "fetch">,
  cookieHeader: string | null,
): Promise<SessionLookup> {
  let response: Response;
  try {
    response = await backends.fetch("/api/auth/get-session", {
      headers: { accept: "application/json", ...(cookieHeader ? { cookie: cookieHeader } : {}) },
      signal: AbortSignal.timeout(SESSION_TIMEOUT_MS),
    });
  } catch (error) {
    return { status: "unavailable", reason: describeFetchFailure(error) };
  }
  const setCookies = response.headers.getSetCookie();
  if (response.status === 401) return { status: "signed-out", setCookies };
  if (!response.ok) return { status: "unavailable", reason: `HTTP ${response.status}` };

  const body: unknown = await response.json().catch(() => undefined);
  if (body === null) return { status: "signed-out", setCookies };
  const user = readUser(body);
  if (!user) return { status: "unavailable", reason: "unexpected get-session body" };
  return { status: "signed-in", user, setCookies };
}

function describeFetchFailure(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError")
    return `no answer in ${SESSION_TIMEOUT_MS} ms`;
  return `unreachable (${socketErrorCode(error) ?? String(error)})`;
}

function readUser(body: unknown): SessionUser | undefined {
  if (typeof body !== "object" || body === null || !("user" in body)) return undefined;
  const user = body.user as Partial<Record<keyof SessionUser, unknown>> | null;
  if (!user || typeof user.id !== "string" || typeof user.email !== "string") return undefined;
  const name = typeof user.name === "string" && user.name.trim() ? user.name : user.email;
  return { id: user.id, name, email: user.email, role: readRole(user.role) };
}

/**
 * A backend from before roles sends none: its only person is the admin. An unknown role gets the
 * least rights; the backend enforces roles anyway, this only decides what the dashboard shows.
 */
function readRole(value: unknown): Role {
  if (value === undefined) return "admin";
  const parsed = roleSchema.safeParse(value);
  return parsed.success ? parsed.data : "viewer";
}
