import type { Deadline } from "../platform/deadline.ts";
import { type KomodoClient, type KomodoUpdate, UpstreamError } from "../upstream/komodo-client.ts";
import type { DeployAction, DeployStep } from "./run.ts";

export type ExecuteStep = "PullStack" | "DestroyStack" | "DeployStack";

/** The step each execute call is, as runs show it. */
export const stepOf: Record<ExecuteStep, DeployStep> = {
  PullStack: "pull",
  DestroyStack: "take-down",
  DeployStack: "deploy",
};

/** The step that ends each action: its stages land with the run's outcome, the others' as they come. */
export const lastStepOf: Record<DeployAction, ExecuteStep> = {
  pull: "PullStack",
  redeploy: "DeployStack",
  "pull-redeploy": "DeployStack",
};

/** A step Komodo completed with `success: false`: its reason, and the Update with its stages. */
export class StepFailed extends Error {
  readonly type: ExecuteStep;
  readonly update?: KomodoUpdate;
  constructor(type: ExecuteStep, reason: string, update?: KomodoUpdate) {
    super(`${type} failed: ${reason}`);
    this.name = "StepFailed";
    this.type = type;
    if (update) this.update = update;
  }
}

/** One deploy under way: what it does, until when, and who hears of each step. */
export interface Attempt {
  stack: string;
  deadline: Deadline;
  signal: AbortSignal;
  /** A step's Update has started in Komodo; awaited before it is followed. */
  onStarted: (type: ExecuteStep, update: KomodoUpdate) => Promise<void>;
  /** A step's Update completed, successfully or not, with its stages. */
  onCompleted: (type: ExecuteStep, update: KomodoUpdate) => Promise<void>;
}

/** Runs one execute call and follows its Update to completion; a failed Update is a `StepFailed`. */
async function step(client: KomodoClient, type: ExecuteStep, attempt: Attempt) {
  const { stack, deadline, signal } = attempt;
  let update: KomodoUpdate;
  try {
    update = await client.executeAndWait(
      type,
      { stack },
      { deadline, signal, onStarted: (started) => attempt.onStarted(type, started) },
    );
  } catch (error) {
    if (error instanceof UpstreamError && error.kind === "failed-update") {
      if (error.update) await attempt.onCompleted(type, error.update);
      throw new StepFailed(type, error.message, error.update);
    }
    throw error;
  }
  await attempt.onCompleted(type, update);
}

async function redeploy(client: KomodoClient, attempt: Attempt) {
  const current = await client.findStack(attempt.stack);
  if (current?.info.state !== "down") await step(client, "DestroyStack", attempt);
  await step(client, "DeployStack", attempt);
}

/** What each action asks of Komodo: a pull; a take-down (unless down already) and a deploy; or both. */
export const plans: Record<DeployAction, (client: KomodoClient, attempt: Attempt) => Promise<void>> = {
  pull: (client, attempt) => step(client, "PullStack", attempt),
  redeploy,
  "pull-redeploy": async (client, attempt) => {
    await step(client, "PullStack", attempt);
    await redeploy(client, attempt);
  },
};
