import { eventIterator } from "@orpc/contract";
import { z } from "zod";
import { isoDate, keyOrSession } from "./common.ts";
import { stackName } from "./stacks.ts";

export const deployAction = z.enum(["pull", "redeploy", "pull-redeploy"], {
  error: "action must be one of pull, redeploy, pull-redeploy",
});

/** The step Komodo is on while a run is running: pulling images, taking the stack down, deploying it. */
export const deployStep = z.enum(["pull", "take-down", "deploy"]).meta({
  description:
    "While the run is running, the step Komodo is on: `pull` (PullStack), `take-down` (DestroyStack) or " +
    "`deploy` (DeployStack). Absent before the first step and on runs from Komodo.",
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
  step: deployStep.optional(),
});

/** How long a deploy's services are watched after it succeeded, at most (`settleSeconds`). */
export const MAX_SETTLE_SECONDS = 600;

export const serviceChange = z
  .object({
    service: z.string(),
    image: z.string().meta({ example: "nginx:1.27" }),
    from: z.string().nullable().meta({
      description: "What ran before: the image's digest, or null where Komodo did not say",
      example: "sha256:3f2a9c…",
    }),
    to: z
      .string()
      .nullable()
      .meta({ description: "What runs after; the same as `from` when nothing changed" }),
  })
  .meta({
    description:
      "One service before and after the deploy: the running image's repository digest (Komodo 2.x), " +
      "or its local image id where Komodo reports no digest (1.x).",
  });

export const commitChange = z
  .object({
    from: z.string().nullable().meta({ example: "a1b2c3d" }),
    to: z.string().nullable().meta({ example: "e4f5a6b" }),
    message: z
      .string()
      .nullable()
      .meta({ description: "The deployed commit's message", example: "Add the pricing page" }),
  })
  .meta({
    description:
      "A repository stack's deployed commit before and after; null for other stacks, and for a pull, which deploys none",
  });

export const settleState = z.enum(["watching", "stable", "unstable", "skipped"]);

export const runSettle = z
  .object({
    state: settleState.meta({
      description:
        "`watching` while the services are watched after a successful redeploy, then `stable` or `unstable`; " +
        "`skipped` for a pull, a failed deploy or `settleSeconds: 0`",
    }),
    reason: z.string().nullable().meta({
      description: "Why it is unstable or skipped",
      example: "web restarted 3 times",
    }),
    until: isoDate.nullable().meta({ description: "When the watch ends (or ended); null when skipped" }),
  })
  .meta({
    description: "Whether the deploy stayed up: its services watched for `settleSeconds` after it succeeded",
  });

export const finishedRun = deployRun.omit({ step: true }).extend({
  success: z.boolean(),
  message: z.string(),
  finishedAt: isoDate,
  changes: z.array(serviceChange).meta({
    description: "Each service's image before and after; empty when Komodo could not be read",
  }),
  commit: commitChange.nullable(),
  settle: runSettle.nullable().meta({ description: "null on runs from before Stackgate watched deploys" }),
});

/** One Komodo stage of a run (`Compose Pull`, `Compose Up`, …) with its output, as Komodo recorded it. */
export const runStage = z.object({
  stage: z.string().meta({ example: "Compose Up" }),
  command: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string().meta({ description: "docker compose writes its progress here: not an error by itself" }),
  success: z.boolean(),
  startedAt: isoDate.nullable(),
  endedAt: isoDate.nullable(),
});

/** The most a run keeps of its stages' output: longer output is cut, and `truncated` says so. */
export const RUN_LOG_LIMIT_BYTES = 256 * 1024;

/** A run as `GET /api/v0/deploy/runs/{id}` answers it: still running (with its step), or finished. */
const runId = z.string().min(1, "id must not be empty").max(100, "id is too long");

export const deployRunStatus = z.discriminatedUnion("status", [
  deployRun.extend({ status: z.literal("running") }),
  finishedRun.extend({ status: z.literal("finished") }),
]);

/** The header that asks for the 202 answer (RFC 7240); it may carry other preferences too. */
export const RESPOND_ASYNC_PREFERENCE = "respond-async";
/** Where a run can be read: the `Location` of a 202 answer. */
export const deployRunPath = (id: string) => `/api/v0/deploy/runs/${encodeURIComponent(id)}`;
/** How long an Idempotency-Key is remembered per owner. */
export const IDEMPOTENCY_KEY_HOURS = 24;

/** `Idempotency-Key`: 1 to 255 visible ASCII characters (a structured-field string's quotes are allowed). */
export const idempotencyKey = z
  .string()
  .transform((raw) => (/^".*"$/.test(raw) ? raw.slice(1, -1) : raw))
  .pipe(
    z
      .string()
      .regex(/^[\x21-\x7e]{1,255}$/, "Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces)"),
  );

const syncDeployAnswer = z.object({
  success: z.literal(true),
  message: z.string().meta({ example: "Acción 'redeploy' completada para 'web'" }),
  stack: z.string(),
  action: deployAction,
});

const requestHeaders = [
  {
    name: "Prefer",
    in: "header" as const,
    required: false,
    description:
      "`respond-async` (RFC 7240): answer 202 at once with the run, and follow it at its `Location` (or on the " +
      "event stream) instead of holding the request open until Komodo finishes. Use it behind a reverse proxy, " +
      "whose read timeout (nginx: 60 s, Cloudflare: 100 s) would otherwise cut a long deploy.",
    schema: { type: "string" as const },
    example: "respond-async",
  },
  {
    name: "Idempotency-Key",
    in: "header" as const,
    required: false,
    description:
      `A key of your choice (1 to 255 visible ASCII characters). A repeat with the same key and the same body ` +
      `within ${IDEMPOTENCY_KEY_HOURS} hours (per user; all keys of one user share them) answers the run the key ` +
      "names while that run is still going or has succeeded, instead of deploying again: 202 with it (and " +
      "`replayed: true`) when asynchronous, or its outcome once it ends. When that run failed or was " +
      "interrupted, the repeat starts a new run under the same key (a failed deploy can be retried). The same " +
      "key with another body (another stack or action): 422.",
    schema: { type: "string" as const, minLength: 1, maxLength: 255 },
    example: "release-4711-web",
  },
];

export const deployEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("subscribed"), running: z.array(deployRun) }),
  z.object({ type: z.literal("started"), run: deployRun }),
  z.object({ type: z.literal("log"), runId: z.string(), stack: z.string(), stages: z.array(runStage) }),
  z.object({ type: z.literal("finished"), run: finishedRun }),
  z.object({ type: z.literal("settled"), run: finishedRun }),
]);

const runDeploy = keyOrSession({
  permission: "deploy",
  keyScope: { deploy: "input" },
  method: "POST",
  path: "/api/v0/deploy",
  tags: ["Deploy"],
  summary: "Run pull, redeploy or pull-redeploy on a stack",
  description:
    "`redeploy` takes the stack down (unless it is already down) and deploys it again; `pull-redeploy` pulls " +
    "first. The answer comes once Komodo has finished every step, unless the request has " +
    "`Prefer: respond-async`: then it is 202 at once with the run, whose outcome " +
    "`GET /api/v0/deploy/runs/{id}` and the event stream tell. Every request is recorded in the history. " +
    "With an `Idempotency-Key`, a repeat answers the run the key names while it is going or succeeded, and " +
    "starts a new run when it failed or was interrupted. A stack Komodo does not know ends as a failed run " +
    "saying so (404 when synchronous), without a failure alert; `GET /api/v0/deploy/check` finds it before.",
  errors: {
    422: "The Idempotency-Key was already used with another body",
    404: "Komodo has no stack of this name (the run is recorded as failed, and no alert is sent)",
    502: "Komodo refused the action, failed it, or could not be reached; the message carries its reason",
    503: "No Komodo connection yet",
    504: "Komodo did not finish within DEPLOY_TIMEOUT_SECONDS",
  },
})
  .input(
    z.strictObject({
      stack: stackName,
      action: deployAction,
      settleSeconds: z
        .number({ error: "settleSeconds must be a number of seconds" })
        .int("settleSeconds must be a whole number of seconds")
        .min(0, "settleSeconds must be at least 0")
        .max(MAX_SETTLE_SECONDS, `settleSeconds must be at most ${MAX_SETTLE_SECONDS}`)
        .optional()
        .meta({
          description:
            "How long to watch the services after a successful redeploy (0 turns it off; default " +
            "SETTLE_SECONDS, 60). The answer does not wait for it: the run's `settle` tells, and the event " +
            "stream's `settled`.",
        }),
    }),
  )
  .output(
    z.union([
      z.object({
        status: z.literal(200).meta({ description: "Komodo finished every step" }),
        body: syncDeployAnswer,
      }),
      z.object({
        status: z
          .literal(202)
          .meta({ description: "With `Prefer: respond-async`: the run is recorded and started; follow it" }),
        headers: z.object({
          location: z.string().meta({ description: "The run: `/api/v0/deploy/runs/{id}`" }),
          "preference-applied": z.literal(RESPOND_ASYNC_PREFERENCE),
        }),
        body: z.object({
          run: deployRun,
          replayed: z.boolean().meta({
            description:
              "true when an earlier request with the same Idempotency-Key started this run (it is still going " +
              "or succeeded), which is answered instead of deploying again",
          }),
        }),
      }),
    ]),
  );

/** The route's own header parameters, added to what `keyOrSession` documents. */
const documentedSpec = runDeploy["~orpc"].route.spec;

export const deployProcedures = {
  run: runDeploy.route({
    outputStructure: "detailed",
    spec: (operation) => {
      const described = typeof documentedSpec === "function" ? documentedSpec(operation) : operation;
      return { ...described, parameters: [...(described.parameters ?? []), ...requestHeaders] };
    },
  }),
  check: keyOrSession({
    permission: "deploy",
    keyScope: { deploy: "input" },
    method: "GET",
    path: "/api/v0/deploy/check",
    tags: ["Deploy"],
    summary: "What can be checked before a deploy, without deploying",
    description:
      "Deploys nothing and records nothing. Answers 200 when the caller may run `action` on `stack` (otherwise " +
      "the 403 the deploy itself would get: a scoped key's refusal names what it may do), with `exists`: " +
      "whether Komodo knows the stack now. A pipeline calls it first, so that a mistyped name or a key without " +
      "the right fails before any run starts.",
    errors: {
      502: "Komodo refused the request or could not be reached; the message carries its reason",
      503: "No Komodo connection yet",
    },
  })
    .input(z.strictObject({ stack: stackName, action: deployAction }))
    .output(
      z.object({
        stack: z.string(),
        action: deployAction,
        exists: z.boolean().meta({ description: "Whether Komodo has a stack of this name" }),
      }),
    ),
  events: keyOrSession({
    permission: "read",
    keyScope: { read: "events", orOwnRuns: true },
    method: "GET",
    path: "/api/v0/deploy/events",
    tags: ["Deploy"],
    summary: "Live deploy events (Server-Sent Events)",
    description:
      "Each event's data is a JSON object with `type`: `subscribed` once on connecting (with the deploys in " +
      "progress), then `started` and `finished` for every deploy, whoever started it. `started` comes again, " +
      "with the same run, each time its `step` changes (keep the runs by id: the later one replaces it). Deploys and pulls that " +
      'Stackgate did not start, seen on Komodo\'s update stream, come too, marked `source: "komodo"`. ' +
      "Nothing is replayed. An API key whose scope lacks the `events` read but that may deploy gets the " +
      "events of the runs it started itself only.",
  }).output(eventIterator(deployEvent)),
  getRun: keyOrSession({
    permission: "read",
    keyScope: { read: "history", orOwnRuns: true },
    method: "GET",
    path: "/api/v0/deploy/runs/{id}",
    tags: ["Deploy"],
    summary: "One deploy run: running (with its step) or finished (with its outcome)",
    description:
      "The run a `202` answer's `Location` names, or any run of the history by its id. An API key sees only the " +
      "runs of the stacks its scope allows (404 for the others); one whose scope lacks the `history` read but " +
      "that may deploy sees only the runs it started itself (404 for the others), so a pipeline's key always " +
      "follows its own deploys.",
    errors: { 404: "No run with this id (or not one this API key may see)" },
  })
    .input(z.strictObject({ id: runId }))
    .output(z.object({ run: deployRunStatus })),
  getRunLogs: keyOrSession({
    permission: "read",
    keyScope: { read: "history", orOwnRuns: true },
    method: "GET",
    path: "/api/v0/deploy/runs/{id}/logs",
    tags: ["Deploy"],
    summary: "The output of every Komodo stage of a run, as Komodo recorded it",
    description:
      "Each stage (`Compose Pull`, `Compose Up`, …) with its command, stdout, stderr, success and times, in the " +
      `order they ran; a running run has the stages of the steps done so far. A run keeps at most ${RUN_LOG_LIMIT_BYTES / 1024} ` +
      "KiB of output: beyond that its stages are cut (the cut marked in the text) and `truncated` is true.",
    errors: { 404: "No run with this id (or not one this API key may see)" },
  })
    .input(z.strictObject({ id: runId }))
    .output(z.object({ stages: z.array(runStage), truncated: z.boolean() })),
};
