import type { Role } from "@stackgate/contract";
import type { TestBackend } from "../../testing/harness.ts";

/** The cookie header of a response that signed someone in. */
export const cookieOf = (headers: Headers) =>
  headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");

/**
 * Brings a person in as a team would: an admin invites them with a role, they accept the link with
 * a name and password. Returns their id and the session cookie accepting gave them.
 */
export async function invitePerson(
  app: TestBackend,
  adminCookie: string,
  {
    email,
    role,
    name = email.split("@")[0] ?? email,
    password = `${role}-password-0123`,
  }: { email: string; role: Role; name?: string; password?: string },
) {
  const invited = await app.request("/api/v0/users/invitations", {
    method: "POST",
    headers: { cookie: adminCookie },
    json: { email, role },
  });
  if (invited.status !== 200) throw new Error(`invitation failed: ${invited.status} ${invited.text}`);
  const token = (invited.json.url as string).split("/invite/")[1];
  const accepted = await app.request("/api/v0/invitations/accept", {
    method: "POST",
    json: { token, name, password },
  });
  if (accepted.status !== 200) throw new Error(`accepting failed: ${accepted.status} ${accepted.text}`);
  return { id: accepted.json.id as string, cookie: cookieOf(accepted.headers), email, name, password };
}
