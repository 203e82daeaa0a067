import { z } from "zod";
import { isoDate, sessionOnly } from "./common.ts";

const tags = ["API keys"];

export const apiKeyName = z
  .string()
  .trim()
  .min(1, "name must not be empty")
  .max(64, "name must be at most 64 characters")
  .meta({ example: "deploy-pipeline" });

export const apiKeySummary = z.object({
  id: z.string(),
  name: z.string(),
  start: z.string().meta({ description: "The first characters of the key", example: "sg_Xk3f9Q" }),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
});

export const apikeys = {
  list: sessionOnly({ method: "GET", path: "/api/v0/apikeys", tags, summary: "List your API keys" }).output(
    z.object({ keys: z.array(apiKeySummary) }),
  ),
  create: sessionOnly({
    method: "POST",
    path: "/api/v0/apikeys",
    tags,
    summary: "Create an API key",
    description: "The full key is in this response only; store it now. Each person may have 100 keys.",
    errors: { 409: "You already have 100 API keys: delete one first" },
  })
    .input(z.strictObject({ name: apiKeyName }))
    .output(
      apiKeySummary.extend({
        key: z.string().meta({ description: "The full key, shown once", example: "sg_<43 characters>" }),
      }),
    ),
  remove: sessionOnly({
    method: "DELETE",
    path: "/api/v0/apikeys",
    tags,
    summary: "Delete and revoke an API key",
    errors: { 404: "No key with this id belongs to you" },
  })
    .input(z.strictObject({ id: z.string().min(1, "id must not be empty").max(64) }))
    .output(z.object({ deleted: z.literal(true) })),
};
