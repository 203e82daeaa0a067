/**
 * People for the browser tests, added the way the product adds them: an admin invites through the
 * API and the invitee accepts the link. Plus requests as any signed-in person, and an invitation
 * aged past its expiry in the database (the API can only make fresh ones).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Role } from "@stackgate/contract";
import Sqlite from "better-sqlite3";
import { type SignInCredentials, sessionCookies } from "./browser.ts";
import type { Stackgate } from "./harness.ts";
import { adminRequest } from "./komodo-setup.ts";

export interface Person extends SignInCredentials {
  name: string;
  role: Role;
}

export interface CreatedInvitation {
  id: string;
  url: string;
  expiresAt: string;
  token: string;
}

let counter = 0;
/** An address no earlier call of this run has used: every invitation needs a new one. */
export function freshEmail(label: string): string {
  counter += 1;
  return `${label}-${counter}-${randomBytes(3).toString("hex")}@stackgate.test`;
}

export async function invite(stackgate: Stackgate, email: string, role: Role): Promise<CreatedInvitation> {
  const created = (await adminRequest(stackgate, "POST", "/api/v0/users/invitations", { email, role })) as {
    id: string;
    url: string;
    expiresAt: string;
  };
  return { ...created, token: created.url.split("/invite/")[1] ?? "" };
}

/** Invited by the admin and accepted at once: a person who can sign in with `role`. */
export async function addPerson(stackgate: Stackgate, role: Role, name = `Test ${role}`): Promise<Person> {
  const email = freshEmail(role);
  const { token } = await invite(stackgate, email, role);
  const password = `pw-${randomBytes(12).toString("base64url")}`;
  const response = await fetch(`${stackgate.baseUrl}/api/v0/invitations/accept`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: stackgate.baseUrl },
    body: JSON.stringify({ token, name, password }),
  });
  if (!response.ok)
    throw new Error(`accepting the invitation answered ${response.status}: ${await response.text()}`);
  await response.body?.cancel();
  return { email, password, name, role };
}

/** A JSON request with `who`'s session, from the dashboard's origin; its status. */
export async function statusAs(
  stackgate: Stackgate,
  who: SignInCredentials,
  method: string,
  path: string,
  body?: unknown,
): Promise<number> {
  const cookie = (await sessionCookies(stackgate, who))
    .map(({ name, value }) => `${name}=${value}`)
    .join("; ");
  const response = await fetch(`${stackgate.baseUrl}${path}`, {
    method,
    headers: {
      cookie,
      origin: stackgate.baseUrl,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.body?.cancel();
  return response.status;
}

/** Moves an invitation's expiry into the past, as seven days of waiting would. */
export function expireInvitation(stackgate: Stackgate, id: string) {
  const database = new Sqlite(join(stackgate.dataDir, "db.sqlite"));
  try {
    database.pragma("busy_timeout = 5000");
    const changed = database
      .prepare("UPDATE invitation SET expires_at = ? WHERE id = ?")
      .run(Date.now() - 60_000, id).changes;
    if (changed !== 1) throw new Error(`no invitation ${id} to expire`);
  } finally {
    database.close();
  }
}
