import type { DeployRun } from "../../lib/deploy-events.ts";
import type { DeployResult } from "../../lib/deploy-result.ts";
import type { HistoryEntry } from "./filters.ts";

/** One line of the history, finished or still running, as both the table and the compact list show it. */
export interface HistoryRow {
  id: string;
  /** The run's id: a history entry has its run's. */
  runId: string;
  /** undefined while the deploy runs. */
  success?: boolean;
  stack: string;
  action: HistoryEntry["action"];
  actor: string;
  via: HistoryEntry["via"];
  /** Who exactly acted; absent while the deploy runs. */
  by?: HistoryEntry["by"];
  /** null while the deploy runs. */
  message: string | null;
  /** When it finished, or when it started for a running deploy. */
  at: Date;
  /** What it changed; empty while it runs (and where nothing was recorded). */
  changes: HistoryEntry["changes"];
  /** Whether it stayed up; null while it runs and on older entries. */
  settle: HistoryEntry["settle"];
}

/** Running deploys first (they are the newest), then the history as it came, newest first. */
export function historyRows(entries: HistoryEntry[], running: DeployRun[]): HistoryRow[] {
  return [
    ...running.map((run) => ({
      id: `running:${run.id}`,
      runId: run.id,
      stack: run.stack,
      action: run.action,
      actor: run.actorName,
      via: run.via,
      message: null,
      at: run.startedAt,
      changes: [],
      settle: null,
    })),
    ...entries.map((entry) => ({ ...entry, runId: entry.id, at: entry.createdAt })),
  ];
}

/** A finished row's result, for its message; undefined while the deploy runs. */
export function resultOf({ success, message, action, stack }: HistoryRow): DeployResult | undefined {
  return success === undefined || message === null ? undefined : { success, message, action, stack };
}
