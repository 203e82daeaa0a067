import { eventIterator } from "@orpc/contract";
import { z } from "zod";
import { isoDate, keyOrSession } from "./common.ts";
import { stackName } from "./stacks.ts";

export const deployAction = z.enum(["pull", "redeploy", "pull-redeploy"], {
  error: "action must be one of pull, redeploy, pull-redeploy",
});

export const deployRun = z.object({
  id: z.string(),
  stack: z.string(),
  action: deployAction,
  via: z.enum(["session", "apiKey"]).meta({
    description:
      "How the actor acted: a person (`session`) or automation (`apiKey`: a pipeline's key, or for a " +
      "run from Komodo, Komodo's own automation such as auto-update or a webhook)",
  }),
  actorName: z.string().meta({ example: "API Key: deploy-web" }),
  startedAt: isoDate,
  source: z
    .enum(["stackgate", "komodo"])
    .optional()
    .meta({
      description:
        "`komodo` for a deploy Stackgate did not start (someone in Komodo's UI, Komodo's auto-update, a " +
        "webhook), seen on Komodo's update stream; such runs are not in the history. Absent: Stackgate's own.",
    }),
  operation: z.string().optional().meta({
    description: "For a run from Komodo: Komodo's operation, e.g. `DeployStack`",
    example: "DeployStack",
  }),
});

export const finishedRun = deployRun.extend({
  success: z.boolean(),
  message: z.string(),
  finishedAt: isoDate,
});

export const deployEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("subscribed"), running: z.array(deployRun) }),
  z.object({ type: z.literal("started"), run: deployRun }),
  z.object({ type: z.literal("finished"), run: finishedRun }),
]);

export const deployProcedures = {
  run: keyOrSession({
    permission: "deploy",
    method: "POST",
    path: "/api/v0/deploy",
    tags: ["Deploy"],
    summary: "Run pull, redeploy or pull-redeploy on a stack",
    description:
      "`redeploy` takes the stack down (unless it is already down) and deploys it again; `pull-redeploy` pulls " +
      "first. The answer comes once Komodo has finished every step. Every request is recorded in the history.",
    errors: {
      502: "Komodo refused the action, failed it, or could not be reached; the message carries its reason",
      503: "No Komodo connection yet",
      504: "Komodo did not finish within DEPLOY_TIMEOUT_SECONDS",
    },
  })
    .input(z.strictObject({ stack: stackName, action: deployAction }))
    .output(
      z.object({
        success: z.literal(true),
        message: z.string().meta({ example: "Acción 'redeploy' completada para 'web'" }),
        stack: z.string(),
        action: deployAction,
      }),
    ),
  events: keyOrSession({
    permission: "read",
    method: "GET",
    path: "/api/v0/deploy/events",
    tags: ["Deploy"],
    summary: "Live deploy events (Server-Sent Events)",
    description:
      "Each event's data is a JSON object with `type`: `subscribed` once on connecting (with the deploys in " +
      "progress), then `started` and `finished` for every deploy, whoever started it. Deploys and pulls that " +
      'Stackgate did not start, seen on Komodo\'s update stream, come too, marked `source: "komodo"`. ' +
      "Nothing is replayed.",
  }).output(eventIterator(deployEvent)),
};
