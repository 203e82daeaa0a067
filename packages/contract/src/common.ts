import { oc, type Route } from "@orpc/contract";
import { z } from "zod";
import type { KeyScopeNeed, Permission } from "./roles.ts";

export const isoDate = z.date().meta({ example: "2026-11-22T10:15:00.000Z" });

/**
 * What a name shown to others must not hold: control characters, the bidirectional controls that
 * reorder what follows (U+202E shows "txt.exe" as "exe.txt"), and invisible characters that make
 * two names look alike. Joiners (U+200C, U+200D) stay: scripts and emoji need them.
 */
const UNSAFE_IN_NAMES = /[\p{Cc}؜​‎‏‪-‮⁠-⁤⁦-⁩﻿]/u;

/** `text` without what names must not hold, for names taken from elsewhere (an identity provider's claims). */
export const withoutUnsafeCharacters = (text: string) =>
  text.toWellFormed().replace(new RegExp(UNSAFE_IN_NAMES.source, "gu"), "");

/** A name people see in lists, the history and the audit: trimmed, 1 to `max` characters, nothing hidden in it. */
export const displayName = (field: string, max: number) =>
  z
    .string()
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`)
    .refine((name) => name.isWellFormed(), `${field} must be valid Unicode text (it holds a lone surrogate)`)
    .refine(
      (name) => !UNSAFE_IN_NAMES.test(name),
      `${field} must not hold control, bidirectional or invisible characters`,
    );

/**
 * Who acted, beyond the name shown (which anyone may choose): the person, or the API key and its
 * owner, as they were then.
 */
export const actedBy = z
  .object({
    userId: z.string().nullable().meta({
      description: "The person, or the API key's owner; null for Stackgate itself or someone unknown",
    }),
    email: z.string().nullable().meta({ description: "Their email then", example: "ada@example.com" }),
    keyId: z.string().nullable().meta({ description: "The API key that acted, if a key did" }),
  })
  .meta({ description: "Null fields on entries recorded before Stackgate kept them" });

const errorResponse = (description: string, example: { code: string; status: number; message: string }) => ({
  description,
  content: {
    "application/json": {
      schema: {
        type: "object" as const,
        required: ["code", "status", "message"],
        properties: {
          code: { type: "string" as const },
          status: { type: "integer" as const },
          message: { type: "string" as const },
        },
      },
      example,
    },
  },
});

const commonErrors = {
  "400": errorResponse("The request is malformed; the message names the problem", {
    code: "BAD_REQUEST",
    status: 400,
    message: "name: name must not be empty",
  }),
  "401": errorResponse("No valid API key (unknown, revoked or expired) and no valid session", {
    code: "UNAUTHORIZED",
    status: 401,
    message: "Sign in, or send a valid API key in the x-api-key header",
  }),
};

const forbiddenForKeys = errorResponse("An API key was used on an endpoint that needs a signed-in session", {
  code: "FORBIDDEN",
  status: 403,
  message: "This endpoint needs a signed-in session; API keys may not use it",
});

const outsideKeyScope = errorResponse(
  "A scoped API key was used outside its scope (another stack, action or read); the message names what it may do",
  {
    code: "FORBIDDEN",
    status: 403,
    message: "This API key may not redeploy 'api'. It may: pull on stacks web-*; read stacks, events",
  },
);

type RouteOptions = Omit<Route, "spec"> & {
  /** Further error statuses of this procedure, by status code, for the OpenAPI document. */
  errors?: Record<number, string>;
  /** What the caller's role must allow (for an API key: its owner's role, now). */
  permission: Permission;
};

type KeyRouteOptions = RouteOptions & {
  /** What a scoped API key's scope must allow, beside what its owner's role must. */
  keyScope: KeyScopeNeed;
};

/**
 * Who may call a procedure. Declared here, beside the route, and enforced by one
 * middleware on the backend, which refuses any procedure that declares nothing. `keyOnly` is
 * for `/metrics`, which a scrape configuration reads with a key.
 */
export type Access = "keyOrSession" | "sessionOnly" | "keyOnly" | "public";

/** What the backend's access check reads of a procedure (`admitCaller`). */
export interface AccessRule {
  access?: Access;
  permission?: Permission;
  keyScope?: KeyScopeNeed;
}

const withAccess = oc.$meta<AccessRule>({});

function describedRoute(
  access: Access,
  { errors = {}, permission, keyScope, ...route }: RouteOptions & { keyScope?: KeyScopeNeed },
  security: Array<Record<string, string[]>>,
  tierErrors: Record<string, ReturnType<typeof errorResponse>>,
) {
  const extraErrors = Object.fromEntries(
    Object.entries(errors).map(([status, description]) => [
      status,
      errorResponse(description, { code: "ERROR", status: Number(status), message: description }),
    ]),
  );
  return withAccess.meta({ access, permission, keyScope }).route({
    ...route,
    spec: (operation) => ({
      ...operation,
      security,
      responses: { ...operation.responses, ...tierErrors, ...extraErrors },
    }),
  });
}

/** A procedure a pipeline may call with `x-api-key` as well as a person with a session. */
export const keyOrSession = (route: KeyRouteOptions) =>
  describedRoute("keyOrSession", route, [{ apiKey: [] }, { session: [] }], {
    ...commonErrors,
    "403": outsideKeyScope,
  });

/** A procedure only a signed-in person may call; an API key gets 403. */
export const sessionOnly = (route: RouteOptions) =>
  describedRoute("sessionOnly", route, [{ session: [] }], { ...commonErrors, "403": forbiddenForKeys });

/** A procedure anyone may call, without a session or key (accepting an invitation). */
export const publicRoute = ({ errors = {}, ...route }: Omit<RouteOptions, "permission">) =>
  withAccess.meta({ access: "public" }).route({
    ...route,
    spec: (operation) => ({
      ...operation,
      security: [],
      responses: {
        ...operation.responses,
        "400": commonErrors["400"],
        ...Object.fromEntries(
          Object.entries(errors).map(([status, description]) => [
            status,
            errorResponse(description, { code: "ERROR", status: Number(status), message: description }),
          ]),
        ),
      },
    }),
  });
