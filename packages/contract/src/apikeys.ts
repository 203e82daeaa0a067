import { z } from "zod";
import { displayName, isoDate, sessionOnly } from "./common.ts";
import { deployAction } from "./deploy.ts";
import { READ_AREAS } from "./roles.ts";

const tags = ["API keys"];

export const apiKeyName = displayName("name", 64).meta({ example: "deploy-pipeline" });

/** A stack name, or a pattern where `*` stands for any characters and `?` for one. */
export const stackPattern = z
  .string()
  .min(1, "a stack pattern must not be empty")
  .max(128, "a stack pattern must be at most 128 characters")
  .regex(
    /^[A-Za-z0-9._*?-]+$/,
    "a stack pattern may contain only letters, digits, '.', '_', '-', '*' and '?'",
  )
  .meta({ example: "web-*" });

export const readArea = z.enum(READ_AREAS, {
  error: "read may list only stacks, history, scans, events",
});

export const apiKeyScope = z
  .strictObject({
    stacks: z
      .array(stackPattern)
      .max(50, "stacks may list at most 50 names or patterns")
      .optional()
      .meta({
        description:
          "The stacks the key may act on and see: exact names or patterns (`*` any characters, `?` one). " +
          "Omitted: every stack. Lists and event streams opened with the key show only these stacks.",
        example: ["web-*", "api"],
      }),
    actions: z
      .array(deployAction)
      .optional()
      .meta({ description: "The deploy actions the key may run. Omitted: all three; empty: none." }),
    read: z
      .array(readArea)
      .optional()
      .meta({
        description:
          "What the key may read: `stacks` (the stack list), `history` (history and overview), `scans` " +
          "(image scans, and requesting them), `events` (the live event stream). Omitted: all; empty: none.",
      }),
    metrics: z
      .boolean()
      .optional()
      .meta({ description: "Whether the key may read `GET /metrics` (Prometheus). Default false." }),
  })
  .meta({
    description:
      "What a key may do. A key without a scope has every right an API key has (but not `metrics`). " +
      "Outside its scope a key gets 403, with a message naming what it may do.",
    example: { stacks: ["web-*"], actions: ["pull"], read: ["stacks", "events"], metrics: false },
  });

export const apiKeySummary = z.object({
  id: z.string(),
  name: z.string(),
  start: z.string().meta({ description: "The first characters of the key", example: "sg_Xk3f9Q" }),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
  scope: apiKeyScope.nullable().meta({ description: "null: the full rights of an API key (no metrics)" }),
  expiresAt: isoDate.nullable().meta({ description: "After this moment the key gets 401; null: never" }),
});

export const apikeys = {
  list: sessionOnly({
    permission: "account",
    method: "GET",
    path: "/api/v0/apikeys",
    tags,
    summary: "List your API keys",
  }).output(z.object({ keys: z.array(apiKeySummary) })),
  create: sessionOnly({
    permission: "account",
    method: "POST",
    path: "/api/v0/apikeys",
    tags,
    summary: "Create an API key",
    description:
      "The full key is in this response only; store it now. Each person may have 100 keys. A `scope` limits " +
      "the key to some stacks, actions and reads; `expiresAt` ends it.",
    errors: { 409: "You already have 100 API keys: delete one first" },
  })
    .input(
      z.strictObject({
        name: apiKeyName,
        scope: apiKeyScope.optional(),
        expiresAt: z.iso
          .datetime({
            offset: true,
            error: "expiresAt must be an ISO 8601 date and time, e.g. 2027-01-31T00:00:00Z",
          })
          .optional()
          .meta({ description: "When the key stops working (must be in the future); omitted: never" }),
      }),
    )
    .output(
      apiKeySummary.extend({
        key: z.string().meta({ description: "The full key, shown once", example: "sg_<43 characters>" }),
      }),
    ),
  remove: sessionOnly({
    permission: "account",
    method: "DELETE",
    path: "/api/v0/apikeys",
    tags,
    summary: "Delete and revoke an API key",
    errors: { 404: "No key with this id belongs to you" },
  })
    .input(z.strictObject({ id: z.string().min(1, "id must not be empty").max(64) }))
    .output(z.object({ deleted: z.literal(true) })),
};
