import type { Types } from "komodo_client";
import { digestOf } from "./containers.ts";
import { missingPermission, RESOURCE_BUSY } from "./errors.ts";
import type { ExecuteType, SimService, SimStack } from "./stacks.ts";
import type { NewUpdate, UpdateStore } from "./updates.ts";

type OperationName = `${Types.Operation}`;

/** Komodo's service user for automatic (image-update) redeploys. */
export const AUTO_REDEPLOY_OPERATOR = "000000000000000000000004";

export interface ExecutionContext {
  updates: UpdateStore;
  /** User id of the API key's owner: the operator of every Update the API starts. */
  operator: string;
  clock: () => number;
  /** Runs `task` after `delayMs` (0: on the next tick), on a timer the simulator owns. */
  later: (delayMs: number, task: () => void) => void;
  updateDelayMs: (stack: SimStack) => number;
  /** Keeps `task` until the test releases the stack's Updates (the stack's `holdUpdates` fault). */
  hold: (stack: SimStack, task: () => void) => void;
}

/**
 * Starts an execute the way Komodo does: the Update is stored and returned at once as
 * `InProgress`/`success: true`; permission and busy refusals, like the work itself, only
 * show when it completes.
 */
export function startExecution(
  context: ExecutionContext,
  stack: SimStack,
  type: ExecuteType,
  services: string[],
): Types.Update {
  const operation: OperationName = services.length > 0 ? `${type}Service` : type;
  const { updates } = context;
  // Komodo stores the Update it returns without a message; the task's first change (its status,
  // right away) is the first message, and may reach a client before the execute's answer does.
  const update = updates.add(inProgress(stack, operation, context.operator, context.clock()), {
    announce: false,
  });
  updates.announce(update);
  const refusal = refusalOf(stack);
  if (!refusal) stack.activeAction = type;
  const finish = stack.faults.holdUpdates
    ? (task: () => void) => context.hold(stack, task)
    : (task: () => void) => context.later(context.updateDelayMs(stack), task);
  finish(() => {
    const now = context.clock();
    if (refusal) {
      complete(updates, update, [taskError(refusal, now)], now);
      return;
    }
    stack.activeAction = undefined;
    complete(updates, update, perform(stack, type, services, now), now);
  });
  return structuredClone(update);
}

/**
 * Starts a deploy made outside the API (by default Komodo's auto-update redeploy) that takes
 * `durationMs` (or, with the stack's `holdUpdates` fault, until released), announced on the update
 * stream like Komodo's own: stored (one message), then completed (another). Returns the Update as it
 * was stored, in progress.
 */
export function startExternalDeploy(
  context: ExecutionContext,
  stack: SimStack,
  options: { operator: string; services: string[]; durationMs: number },
): Types.Update {
  const operation: OperationName = options.services.length > 0 ? "DeployStackService" : "DeployStack";
  const update = context.updates.add(inProgress(stack, operation, options.operator, context.clock()));
  stack.activeAction = "DeployStack";
  const finish = stack.faults.holdUpdates
    ? (task: () => void) => context.hold(stack, task)
    : (task: () => void) => context.later(options.durationMs, task);
  finish(() => {
    const now = context.clock();
    stack.activeAction = undefined;
    complete(context.updates, update, perform(stack, "DeployStack", options.services, now), now);
  });
  return structuredClone(update);
}

/** Why Komodo's background task would refuse to run an action on the stack right now, if it would. */
function refusalOf(stack: SimStack): string | undefined {
  if (stack.faults.forbidden || stack.faults.unreadable) return missingPermission("Execute");
  if (stack.faults.busy || stack.activeAction) return RESOURCE_BUSY;
  return undefined;
}

/**
 * Applies the action to the stack and returns its logs, staged and worded like Komodo's (docker
 * compose writes its progress to stderr). A pull fetches the registry's latest build; a deploy
 * pulls first (`auto_pull`, Komodo's default) and recreates the containers whose image changed,
 * or all of them after a take-down. A repository stack pulls its branch's head first. Simplifications:
 * `services` only narrows which services a pull or deploy touches, and a successful pull clears
 * `update_available` at once (real Komodo compares registry digests with the running containers).
 */
function perform(stack: SimStack, type: ExecuteType, services: string[], now: number): Types.Log[] {
  const logs: Types.Log[] = [];
  if (services.length > 0) {
    logs.push(log("Service/s", "", `Execution requested for Stack service/s ${services.join(", ")}`, now));
  }
  const targets =
    services.length > 0 ? stack.services.filter((s) => services.includes(s.service)) : stack.services;
  const failure = stack.faults.failWith;
  const compose = `cd /etc/komodo/stacks/${stack.name} && docker compose -p ${stack.name} -f compose.yaml`;
  stack.updatedAt = now;

  if (type === "DestroyStack") {
    stack.state = "down";
    return [...logs, progress("Compose Down", `${compose} down`, downOutput(stack), now)];
  }

  const git = stack.repository ? gitLogs(stack, now) : [];
  const pull = progress("Compose Pull", `${compose} pull`, pullOutput(targets), now);
  if (type === "PullStack") {
    if (failure) return [...logs, ...git, failedLog(pull, failure)];
    pullLatest(targets);
    return [...logs, ...git, pull];
  }

  const pulls = stack.config.auto_pull ? [pull] : [];
  const up = progress("Compose Up", `${compose} up -d`, upOutput(stack, targets), now);
  if (failure) return [...logs, ...git, ...pulls, failedLog(up, failure)];
  if (stack.config.auto_pull) pullLatest(targets);
  const wasDown = stack.state === "down" || stack.state === "unknown";
  for (const service of targets) {
    if (wasDown || service.running !== service.pulled) service.createdAt = now;
    service.running = service.pulled;
  }
  if (stack.repository) stack.repository.deployed = stack.repository.latest;
  stack.state = "running";
  stack.deployedAt = now;
  return [...logs, ...git, ...pulls, up];
}

/** A repository stack's git stages; "Latest Commit" holds the markup Komodo puts around the hash. */
function gitLogs(stack: SimStack, now: number): Types.Log[] {
  const { latest } = stack.repository!;
  const cwd = `cd /etc/komodo/repos/${stack.name}`;
  return [
    log("Git pull", `${cwd} && git pull --rebase --force origin main`, "Already up to date.", now),
    log(
      "Latest Commit",
      "",
      `<span class="text-muted-foreground">hash</span>: ${latest.hash}\n<span class="text-muted-foreground">message</span>: ${latest.message}`,
      now,
    ),
  ];
}

/**
 * Records a completed deploy made outside the API (by default Komodo's auto-update redeploy) and
 * applies it to the stack, so that `ListUpdates` shows it to a background sweep.
 */
export function recordDeploy(
  updates: UpdateStore,
  stack: SimStack,
  options: { operator: string; at: number; services: string[] },
): Types.Update {
  const operation: OperationName = options.services.length > 0 ? "DeployStackService" : "DeployStack";
  // Stored (one message), then completed at once (another), as an instant deploy would be.
  const update = updates.add(inProgress(stack, operation, options.operator, options.at));
  complete(updates, update, perform(stack, "DeployStack", options.services, options.at), options.at);
  return structuredClone(update);
}

/**
 * Stores an Update that is already complete, as Komodo records writes (UpdateStack, DeleteStack):
 * one message, already `Complete`.
 */
export function recordCompleted(
  updates: UpdateStore,
  stack: SimStack,
  options: { operation: OperationName; operator: string; at: number; logs: Types.Log[] },
): Types.Update {
  const update = updates.add(inProgress(stack, options.operation, options.operator, options.at), {
    announce: false,
  });
  finalize(update, options.logs, options.at);
  updates.announce(update);
  return update;
}

function inProgress(stack: SimStack, operation: OperationName, operator: string, at: number): NewUpdate {
  return {
    operation: operation as Types.Operation,
    start_ts: at,
    success: true,
    operator,
    target: { type: "Stack", id: stack.id },
    logs: [],
    status: "InProgress" as Types.UpdateStatus,
  };
}

/** Komodo's `finalize` plus `update_update`: the Update completes, and the change is announced. */
function complete(updates: UpdateStore, update: Types.Update, logs: Types.Log[], now: number): void {
  finalize(update, logs, now);
  updates.announce(update);
}

function finalize(update: Types.Update, logs: Types.Log[], now: number): void {
  update.logs.push(...logs);
  update.success = update.logs.every((entry) => entry.success);
  update.status = "Complete" as Types.UpdateStatus;
  update.end_ts = now;
}

export function log(stage: string, command: string, stdout: string, now: number): Types.Log {
  return { stage, command, stdout, stderr: "", success: true, start_ts: now, end_ts: now };
}

function failedLog(entry: Types.Log, stderr: string): Types.Log {
  return { ...entry, stdout: "", stderr, success: false };
}

/** Komodo's "Task Error" log, with the markup its `format_serror` puts around the label. */
function taskError(message: string, now: number): Types.Log {
  const stderr = `<span class="text-red-700 dark:text-red-400">ERROR</span>: ${message}`;
  return failedLog(log("Task Error", "", "", now), stderr);
}

function pullLatest(services: SimService[]): void {
  for (const service of services) {
    service.pulled = service.latest;
    service.updateAvailable = false;
  }
}

/** A stage whose output docker compose writes to stderr (its progress), as Komodo records it. */
function progress(stage: string, command: string, output: string, now: number): Types.Log {
  return { ...log(stage, command, "", now), stderr: output };
}

function pullOutput(services: SimService[]): string {
  return services
    .flatMap(({ service, image, pulled, latest }) =>
      pulled === latest
        ? [` ${service} Pulling`, ` ${service} Pulled`]
        : [
            ` ${service} Pulling`,
            ` ${service} Digest: ${digestOf(image, latest)}`,
            ` ${service} Status: Downloaded newer image for ${image}`,
            ` ${service} Pulled`,
          ],
    )
    .join("\n");
}

function upOutput(stack: SimStack, services: SimService[]): string {
  return services
    .flatMap(({ service }) => [
      ` Container ${stack.name}-${service}-1  Recreate`,
      ` Container ${stack.name}-${service}-1  Started`,
    ])
    .join("\n");
}

function downOutput(stack: SimStack): string {
  const containers = stack.services.map(({ service }) => ` Container ${stack.name}-${service}-1  Removed`);
  return [...containers, ` Network ${stack.name}_default  Removed`].join("\n");
}
