import { z } from "zod";
import { displayName, sessionOnly } from "./common.ts";

const tags = ["Komodo connection"];

export const httpUrl = (what: string) =>
  z
    .url({ protocol: /^https?$/, error: `${what} must be an http:// or https:// URL` })
    .max(2048, `${what} must be at most 2048 characters`);

export const connectionName = displayName("name", 64).meta({ example: "production" });

const credential = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} must not be empty`)
    .max(512, `${what} must be at most 512 characters`)
    .regex(/^[\x21-\x7e]+$/, `${what} must be printable characters without spaces`);

export const connection = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string().meta({ example: "https://komodo.example.com" }),
});

export const updateStreamState = z
  .object({
    status: z.enum(["connecting", "connected", "disconnected"]),
    reason: z.string().nullable().meta({
      description: "Why the stream is not connected (its last failure); null when connected",
      example:
        "Komodo refused the login: failed to authenticate user using api keys | Invalid user credentials",
    }),
  })
  .meta({
    description:
      "Komodo's update stream (/ws/update), which tells Stackgate the moment a deploy step completes. " +
      "While it is not connected, deploys poll Komodo instead.",
  });

export const connectionProcedures = {
  get: sessionOnly({
    permission: "admin",
    method: "GET",
    path: "/api/v0/deploy/credentials",
    tags,
    summary: "The Komodo connection (id, name and url only)",
  }).output(
    z.object({
      connection: connection.nullable(),
      updateStream: updateStreamState.nullable().optional(),
    }),
  ),
  save: sessionOnly({
    permission: "admin",
    method: "POST",
    path: "/api/v0/deploy/credentials",
    tags,
    summary: "Save the Komodo connection, replacing the current one",
    description:
      "Key and secret are stored encrypted and never returned. Komodo is asked for its version first: when " +
      "it rejects the key and secret (401/403) nothing is saved (422). When it cannot be reached the " +
      "connection is saved anyway; the response says whether it answered and with which version.",
    errors: { 422: "Komodo rejected the key and secret; nothing was saved" },
  })
    .input(
      z.strictObject({
        name: connectionName,
        url: httpUrl("url"),
        key: credential("key"),
        secret: credential("secret"),
      }),
    )
    .output(
      z.object({
        connection,
        reachable: z.boolean(),
        version: z.string().nullable().meta({ example: "2.3.2" }),
        error: z.string().nullable().meta({ description: "Why Komodo did not answer, when it did not" }),
      }),
    ),
  remove: sessionOnly({
    permission: "admin",
    method: "DELETE",
    path: "/api/v0/deploy/credentials",
    tags,
    summary: "Remove the Komodo connection",
    errors: { 404: "No connection with this name" },
  })
    .input(z.strictObject({ name: connectionName }))
    .output(z.object({ deleted: z.literal(true) })),
};
