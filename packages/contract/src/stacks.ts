import { z } from "zod";
import { isoDate, keyOrSession, sessionOnly } from "./common.ts";

const tags = ["Stacks"];

/** Komodo stack names as they appear in compose projects; nothing that could escape a path. */
export const stackName = z
  .string()
  .min(1, "stack must not be empty")
  .max(128, "stack must be at most 128 characters")
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "stack may contain only letters, digits, '.', '_' and '-'")
  .refine((name) => !name.includes(".."), "stack must not contain '..'")
  .meta({ example: "web" });

export const stackService = z.object({
  service: z.string(),
  image: z.string().meta({ example: "ghcr.io/acme/web:1.4" }),
  update_available: z.boolean(),
});

export const stack = z.object({
  id: z.string().meta({ description: "Komodo's id of the stack" }),
  name: z.string(),
  state: z.string().meta({ description: "As Komodo reports it: running, down, stopped, unhealthy, …" }),
  status: z.string().nullable().meta({ example: "running(2)" }),
  info: z.object({ services: z.array(stackService) }),
  images: z.array(z.string()).meta({ description: "The distinct image references of the stack's services" }),
});

export const runningService = z.object({
  service: z.string(),
  image: z.string(),
  digest: z.string().nullable().meta({
    description:
      "The running image's repository digest (Komodo 2.x), or its image id (1.x); null when unknown",
  }),
  state: z
    .string()
    .nullable()
    .meta({ description: "The container's state, as docker says it", example: "running" }),
  status: z.string().nullable().meta({ example: "Up 2 hours (healthy)" }),
  since: isoDate
    .nullable()
    .meta({ description: "When a deploy recorded here brought this digest; null if none did" }),
  runId: z.string().nullable().meta({ description: "That deploy's run (`GET /api/v0/deploy/runs/{id}`)" }),
});

const pollForUpdates = z.object({
  stack: z.string(),
  enabled: z.boolean().meta({ description: "Komodo's `poll_for_updates` setting of the stack" }),
});

const upstreamErrors = {
  502: "Komodo refused the request or could not be reached; the message carries its reason",
  503: "No Komodo connection yet",
};

export const stackProcedures = {
  list: keyOrSession({
    permission: "read",
    keyScope: { read: "stacks" },
    method: "GET",
    path: "/api/v0/stacks",
    tags,
    summary: "List the stacks, live from Komodo",
    errors: upstreamErrors,
  }).output(z.object({ stacks: z.array(stack) })),
  services: keyOrSession({
    permission: "read",
    keyScope: { read: "stacks" },
    method: "GET",
    path: "/api/v0/stacks/{stack}/services",
    tags,
    summary: "What each service of a stack runs now, since when and from which deploy",
    description:
      "Live from Komodo: each service's image, running digest and container state; and from the history, the " +
      "deploy that brought that digest. A scoped API key sees only its stacks (404 for the others).",
    errors: { 404: "Not a stack this API key may see", ...upstreamErrors },
  })
    .input(z.strictObject({ stack: stackName }))
    .output(z.object({ stack: z.string(), services: z.array(runningService) })),
  remove: sessionOnly({
    permission: "admin",
    method: "DELETE",
    path: "/api/v0/stacks/{stack}",
    tags,
    summary: "Delete a stack in Komodo (a running stack is taken down first)",
    errors: upstreamErrors,
  })
    .input(z.strictObject({ stack: stackName }))
    .output(z.object({ deleted: z.literal(true), stack: z.string() })),
  getPollForUpdates: sessionOnly({
    permission: "read",
    method: "GET",
    path: "/api/v0/stacks/{stack}/poll-for-updates",
    tags,
    summary: "Whether Komodo's automatic image update check is on for a stack",
    errors: upstreamErrors,
  })
    .input(z.strictObject({ stack: stackName }))
    .output(pollForUpdates),
  setPollForUpdates: sessionOnly({
    permission: "admin",
    method: "PUT",
    path: "/api/v0/stacks/{stack}/poll-for-updates",
    tags,
    summary: "Turn Komodo's automatic image update check for a stack on or off",
    errors: upstreamErrors,
  })
    .input(z.strictObject({ stack: stackName, enabled: z.boolean() }))
    .output(pollForUpdates),
};
