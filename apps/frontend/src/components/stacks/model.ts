/**
 * What the stacks pages and the overview derive from the raw API data: a stack's state as tone, word
 * and group, its problems, the list filters with their counts, and the problems-first order. Pure
 * functions, so the overview's counters and the Stacks page's filter chips always agree.
 */
import type { deployAction, historyEntry, stack } from "@stackgate/contract";
import type { z } from "zod";
import { nameOrder } from "../../lib/name-order.ts";
import { type ImageScan, isInProgress } from "../security/scan-model.ts";
import type { Tone } from "../ui/tone.ts";

export type Stack = z.infer<typeof stack>;
export type HistoryEntry = z.infer<typeof historyEntry>;
export type DeployAction = z.infer<typeof deployAction>;

export const DEPLOY_ACTIONS = [
  "pull",
  "redeploy",
  "pull-redeploy",
] as const satisfies readonly DeployAction[];

type StateGroup = "running" | "stopped" | "problem";

/** Komodo's stack states (komodo_client's StackState) with their colour and the filter they count in. */
const KNOWN_STATES = {
  running: { tone: "success", group: "running" },
  deploying: { tone: "progress", group: "running" },
  restarting: { tone: "warning", group: "problem" },
  unhealthy: { tone: "warning", group: "problem" },
  dead: { tone: "danger", group: "problem" },
  unknown: { tone: "neutral", group: "problem" },
  paused: { tone: "neutral", group: "stopped" },
  stopped: { tone: "neutral", group: "stopped" },
  created: { tone: "neutral", group: "stopped" },
  removing: { tone: "neutral", group: "stopped" },
  down: { tone: "neutral", group: "stopped" },
} as const satisfies Record<string, { tone: Tone; group: StateGroup }>;

export type KnownState = keyof typeof KNOWN_STATES;

export interface StateInfo {
  /** Set for the states Komodo documents; a newer Komodo's unknown word is shown as it comes. */
  known: KnownState | null;
  raw: string;
  tone: Tone;
  group: StateGroup | null;
}

export function describeState(state: string): StateInfo {
  if (Object.hasOwn(KNOWN_STATES, state)) {
    const known = state as KnownState;
    return { known, raw: state, ...KNOWN_STATES[known] };
  }
  return { known: null, raw: state, tone: "neutral", group: null };
}

/**
 * A container's state as docker says it, with the stacks' words and colours: one that runs but fails
 * its health check is unhealthy; one that exited is stopped (its status says with which code).
 */
export function describeContainer(state: string | null, status: string | null): StateInfo {
  if (state === null) return describeState("unknown");
  if (state === "running" && status?.includes("(unhealthy)")) return describeState("unhealthy");
  if (state === "exited") return { ...describeState("stopped"), raw: state };
  return describeState(state);
}

/** A stack with everything the list shows and filters on, computed once per data change. */
export interface StackRow {
  stack: Stack;
  state: StateInfo;
  /** How many services have a newer image. */
  updates: number;
  /** The stack's newest entry in the recent history, when the history has loaded and holds one. */
  lastDeploy: HistoryEntry | undefined;
  /** Unhealthy, dead, restarting, unknown, or its last deploy failed. */
  problem: boolean;
  /** Lower sorts first: the worst problems lead the list. */
  rank: number;
  searchText: string;
}

/** Newest entry per stack; the history list comes newest first. */
export function lastDeployByStack(history: readonly HistoryEntry[] | undefined): Map<string, HistoryEntry> {
  const last = new Map<string, HistoryEntry>();
  for (const entry of history ?? []) if (!last.has(entry.stack)) last.set(entry.stack, entry);
  return last;
}

function problemRank(state: StateInfo, failedLastDeploy: boolean): number {
  if (state.tone === "danger" || failedLastDeploy) return 0;
  if (state.group === "problem") return state.tone === "warning" ? 1 : 2;
  return 3;
}

export function toStackRows(stacks: readonly Stack[], lastDeploys: Map<string, HistoryEntry>): StackRow[] {
  const rows = stacks.map((stack): StackRow => {
    const state = describeState(stack.state);
    const lastDeploy = lastDeploys.get(stack.name);
    const failedLastDeploy = lastDeploy?.success === false;
    const rank = problemRank(state, failedLastDeploy);
    return {
      stack,
      state,
      updates: stack.info.services.filter((service) => service.update_available).length,
      lastDeploy,
      problem: rank < 3,
      rank,
      searchText: [stack.name, ...stack.info.services.flatMap((s) => [s.service, s.image])]
        .join("\n")
        .toLowerCase(),
    };
  });
  const compareNames = nameOrder(stacks.map((stack) => stack.name));
  return rows.sort((a, b) => a.rank - b.rank || compareNames(a.stack.name, b.stack.name));
}

export const STACK_FILTERS = ["all", "running", "stopped", "problems", "updates"] as const;
export type StackFilter = (typeof STACK_FILTERS)[number];

export function isStackFilter(value: unknown): value is StackFilter {
  return STACK_FILTERS.includes(value as StackFilter);
}

const filterTests: Record<StackFilter, (row: StackRow) => boolean> = {
  all: () => true,
  running: (row) => row.state.group === "running",
  stopped: (row) => row.state.group === "stopped",
  problems: (row) => row.problem,
  updates: (row) => row.updates > 0,
};

export function matchesFilter(row: StackRow, filter: StackFilter): boolean {
  return filterTests[filter](row);
}

/** Every word of the query must appear in the name, a service name or an image reference. */
export function matchesSearch(row: StackRow, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return words.every((word) => row.searchText.includes(word));
}

export function countByFilter(rows: readonly StackRow[]): Record<StackFilter, number> {
  const counts = { all: 0, running: 0, stopped: 0, problems: 0, updates: 0 };
  for (const row of rows) {
    for (const filter of STACK_FILTERS) if (filterTests[filter](row)) counts[filter] += 1;
  }
  return counts;
}

/** Critical and high findings over a set of images, and whether any of them has no result yet. */
export interface VulnerabilitySummary {
  critical: number;
  high: number;
  /** Queued or scanning without an earlier result, or not in the scan list yet. */
  pending: number;
  failed: number;
  /** At least one image has a result to show. */
  scanned: boolean;
}

export function isPendingScan(scan: ImageScan | undefined): boolean {
  return !scan || (isInProgress(scan) && scan.scannedAt === null);
}

export function summarizeVulnerabilities(
  images: readonly string[],
  scans: Map<string, ImageScan>,
): VulnerabilitySummary {
  const summary: VulnerabilitySummary = { critical: 0, high: 0, pending: 0, failed: 0, scanned: false };
  for (const image of images) {
    const scan = scans.get(image);
    if (isPendingScan(scan)) summary.pending += 1;
    if (!scan) continue;
    if (scan.status === "failed") summary.failed += 1;
    if (scan.scannedAt !== null) {
      summary.scanned = true;
      summary.critical += scan.counts.critical;
      summary.high += scan.counts.high;
    }
  }
  return summary;
}
