/**
 * What a bulk action is and how its run stands: pure, so the panel, the summary and the tests agree.
 */
import type { Permission } from "@stackgate/contract";
import type { Translate } from "../../../lib/i18n.ts";
import { DEPLOY_ACTIONS, type DeployAction } from "../model.ts";

export const BULK_ACTIONS = [...DEPLOY_ACTIONS, "poll-on", "poll-off", "delete"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** Deploys need `deploy`; changing a stack's settings or deleting it needs `admin` (packages/contract/src/roles.ts). */
export function permissionFor(action: BulkAction): Permission {
  return (DEPLOY_ACTIONS as readonly string[]).includes(action) ? "deploy" : "admin";
}

export function isDeployAction(action: BulkAction): action is DeployAction {
  return permissionFor(action) === "deploy";
}

export type StackRunState =
  | { status: "waiting" }
  | { status: "running"; startedAt: number }
  | { status: "succeeded"; finishedAt: number }
  | { status: "failed"; reason: string }
  | { status: "cancelled" };

export interface BulkRunView {
  action: BulkAction;
  /** In the order they are sent. */
  stacks: string[];
  states: Map<string, StackRunState>;
}

export interface BulkTally {
  waiting: number;
  running: number;
  succeeded: number;
  failed: string[];
  cancelled: number;
  /** Nothing waits or runs any more. */
  finished: boolean;
}

export function tally(run: BulkRunView): BulkTally {
  const counts: BulkTally = {
    waiting: 0,
    running: 0,
    succeeded: 0,
    failed: [],
    cancelled: 0,
    finished: false,
  };
  for (const stack of run.stacks) {
    const state = run.states.get(stack) ?? { status: "waiting" };
    if (state.status === "failed") counts.failed.push(stack);
    else counts[state.status] += 1;
  }
  counts.finished = counts.waiting === 0 && counts.running === 0;
  return counts;
}

/** The concurrency limit: 3 unless the person chose otherwise in this browser. */
export const DEFAULT_CONCURRENCY = 3;
export const MAX_CONCURRENCY = 10;
const CONCURRENCY_KEY = "sg_bulk_concurrency";

export function parseConcurrency(value: string | null | undefined): number {
  const number = Number(value);
  return Number.isInteger(number) && number >= 1 && number <= MAX_CONCURRENCY ? number : DEFAULT_CONCURRENCY;
}

export function loadConcurrency(): number {
  try {
    return parseConcurrency(window.localStorage.getItem(CONCURRENCY_KEY));
  } catch {
    return DEFAULT_CONCURRENCY;
  }
}

export function saveConcurrency(limit: number): void {
  try {
    window.localStorage.setItem(CONCURRENCY_KEY, String(parseConcurrency(String(limit))));
  } catch {
    // Storage may be off (private windows): the choice then lasts for this page only.
  }
}

/** "1 stack", "6 stacks": the count phrase the bulk messages embed as `{stacks}`. */
export function stackCount(count: number, t: Translate): string {
  return count === 1 ? t("bulk.stackCount.one") : t("bulk.stackCount.many", { count });
}
