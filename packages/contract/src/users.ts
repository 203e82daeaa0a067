import { z } from "zod";
import { actedBy, displayName, isoDate, publicRoute, sessionOnly } from "./common.ts";
import { historyCursor } from "./history.ts";
import { ROLES } from "./roles.ts";

const tags = ["People"];

export const role = z.enum(ROLES, { error: "role must be one of admin, deployer, viewer" }).meta({
  description:
    "`admin`: everything, including people and settings; `deployer`: read, deploy, request scans and " +
    "manage their own API keys; `viewer`: read only (and their own read-only API keys)",
  example: "deployer",
});

export const personName = displayName("name", 100).meta({ example: "Ada Lovelace" });

export const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "email must be at most 254 characters")
  .pipe(z.email({ error: "email must be an email address, e.g. ada@example.com" }))
  .meta({ example: "ada@example.com" });

export const newPassword = z
  .string()
  .min(12, "password must be at least 12 characters")
  .max(128, "password must be at most 128 characters")
  .meta({ description: "At least 12 characters" });

const userId = z.string().min(1, "id must not be empty").max(64, "id must be at most 64 characters");

/** A one-time invitation token, as in the link `/invite/<token>`. */
export const invitationToken = z
  .string()
  .min(16, "token is not an invitation token")
  .max(128, "token is not an invitation token")
  .regex(/^[A-Za-z0-9_-]+$/, "token is not an invitation token");

export const me = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role,
  sso: z.boolean().meta({ description: "The role comes from single sign-on and is managed there" }),
});

export const person = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role,
  disabled: z.boolean().meta({ description: "A disabled person cannot sign in, and their API keys get 401" }),
  createdAt: isoDate,
  lastSignInAt: isoDate.nullable(),
  sso: z.boolean().meta({ description: "The role comes from single sign-on and cannot be edited here" }),
});

export const invitation = z.object({
  id: z.string(),
  email: z.string(),
  role,
  createdAt: isoDate,
  expiresAt: isoDate,
  invitedBy: z.string().meta({ description: "The name of the admin who invited", example: "Admin" }),
});

export const auditEntry = z.object({
  id: z.string(),
  at: isoDate,
  actor: z
    .string()
    .meta({ description: "Who made the change, as the history names callers", example: "Admin" }),
  by: actedBy,
  action: z.string().meta({ example: "user.role-changed" }),
  target: z.string().nullable().meta({ description: "What was changed", example: "ada@example.com" }),
  detail: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: "What changed, never a secret", example: { from: "viewer", to: "deployer" } }),
});

export const meProcedures = {
  get: sessionOnly({
    permission: "account",
    method: "GET",
    path: "/api/v0/me",
    tags,
    summary: "The signed-in person",
  }).output(me),
  update: sessionOnly({
    permission: "account",
    method: "PATCH",
    path: "/api/v0/me",
    tags,
    summary: "Change your own name",
  })
    .input(z.strictObject({ name: personName }))
    .output(me),
  changePassword: sessionOnly({
    permission: "account",
    method: "POST",
    path: "/api/v0/me/password",
    tags,
    summary: "Change your own password; your other sessions end",
    errors: { 409: "This account signs in with single sign-on and has no password" },
  })
    .input(
      z.strictObject({
        currentPassword: z.string().min(1, "currentPassword must not be empty").max(128),
        newPassword,
      }),
    )
    .output(z.object({ changed: z.literal(true) })),
};

export const userProcedures = {
  list: sessionOnly({
    permission: "admin",
    method: "GET",
    path: "/api/v0/users",
    tags,
    summary: "List people",
  }).output(z.object({ users: z.array(person) })),
  invite: sessionOnly({
    permission: "admin",
    method: "POST",
    path: "/api/v0/users/invitations",
    tags,
    summary: "Invite a person by email with a role",
    description: "The link is valid for 7 days, works once, and is in this response only.",
  })
    .input(z.strictObject({ email, role }))
    .output(
      z.object({
        id: z.string(),
        url: z.string().meta({ example: "https://stackgate.example.com/invite/<token>" }),
        expiresAt: isoDate,
      }),
    ),
  invitations: sessionOnly({
    permission: "admin",
    method: "GET",
    path: "/api/v0/users/invitations",
    tags,
    summary: "List pending invitations",
  }).output(z.object({ invitations: z.array(invitation) })),
  revokeInvitation: sessionOnly({
    permission: "admin",
    method: "DELETE",
    path: "/api/v0/users/invitations/{id}",
    tags,
    summary: "Revoke a pending invitation",
    errors: { 404: "No pending invitation has this id" },
  })
    .input(z.strictObject({ id: userId }))
    .output(z.object({ revoked: z.literal(true) })),
  update: sessionOnly({
    permission: "admin",
    method: "PATCH",
    path: "/api/v0/users/{id}",
    tags,
    summary: "Change a person's role, or disable or enable them",
    description: "Disabling ends the person's sessions at once, and their API keys get 401.",
    errors: {
      404: "No person has this id",
      409: "The last active admin cannot be demoted or disabled; or the role is managed by single sign-on",
    },
  })
    .input(z.strictObject({ id: userId, role: role.optional(), disabled: z.boolean().optional() }))
    .output(person),
  remove: sessionOnly({
    permission: "admin",
    method: "DELETE",
    path: "/api/v0/users/{id}",
    tags,
    summary: "Delete a person (the history keeps their name)",
    errors: { 404: "No person has this id", 409: "The last active admin cannot be deleted" },
  })
    .input(z.strictObject({ id: userId }))
    .output(z.object({ deleted: z.literal(true) })),
};

export const invitationProcedures = {
  inspect: publicRoute({
    method: "POST",
    path: "/api/v0/invitations/inspect",
    tags,
    summary: "What an invitation link is for, before accepting it",
    errors: { 404: "No invitation has this token", 410: "The invitation expired, was used or was revoked" },
  })
    .input(z.strictObject({ token: invitationToken }))
    .output(z.object({ email: z.string(), role, expiresAt: isoDate })),
  accept: publicRoute({
    method: "POST",
    path: "/api/v0/invitations/accept",
    tags,
    summary: "Accept an invitation: creates the account and signs in (sets the session cookie)",
    description:
      "Answers as a sign-in does: the session cookie is set. A link that expired, was already used or was " +
      "revoked is a 400 naming `token` and the reason.",
    errors: {
      403: "Password sign-in is turned off (PASSWORD_SIGN_IN=false): accept the invitation with single sign-on",
      404: "No invitation has this token",
    },
  })
    .input(z.strictObject({ token: invitationToken, name: personName, password: newPassword }))
    .output(me),
};

export const auditProcedures = {
  list: sessionOnly({
    permission: "admin",
    method: "GET",
    path: "/api/v0/audit",
    tags: ["Audit"],
    summary: "Who changed what: people, roles, invitations, settings, API keys, stacks",
    description: "Newest first, paged like the history: pass `nextCursor` as `cursor` for older entries.",
  })
    .input(
      z.strictObject({
        limit: z.coerce
          .number({ error: "limit must be a number from 1 to 100" })
          .int("limit must be a whole number from 1 to 100")
          .min(1, "limit must be a number from 1 to 100")
          .max(100, "limit must be a number from 1 to 100")
          .optional(),
        cursor: historyCursor.optional(),
      }),
    )
    .output(z.object({ entries: z.array(auditEntry), nextCursor: z.string().nullable() })),
};
