import type { finishedRun, historyEntry } from "@stackgate/contract";
import type { z } from "zod";

export type HistoryEntry = z.infer<typeof historyEntry>;
export type FinishedRun = z.infer<typeof finishedRun>;
export type ResultFilter = "all" | "succeeded" | "failed";

/**
 * Who to show: everyone (""), all people or all pipelines (`via:session`, `via:apiKey`), or one
 * actor exactly as the history names it (`actor:API Key: deploy-web`).
 */
export type ActorFilter = "" | `via:${HistoryEntry["via"]}` | `actor:${string}`;

export interface HistoryFilters {
  stack: string;
  result: ResultFilter;
  actor: ActorFilter;
}

export const NO_FILTERS: HistoryFilters = { stack: "", result: "all", actor: "" };

const API_KEY_PREFIX = "API Key: ";

/** The name to show for an actor: a key's own name without the "API Key: " the history adds. */
export function actorDisplayName(actor: string, via: HistoryEntry["via"]): string {
  return via === "apiKey" && actor.startsWith(API_KEY_PREFIX) ? actor.slice(API_KEY_PREFIX.length) : actor;
}

function matchesActor(entry: Pick<HistoryEntry, "actor" | "via">, filter: ActorFilter): boolean {
  if (filter === "") return true;
  if (filter.startsWith("via:")) return entry.via === filter.slice("via:".length);
  return entry.actor === filter.slice("actor:".length);
}

/** Everything but the result filter: what the result counts are counted over. */
export function matchesScope(
  entry: Pick<HistoryEntry, "actor" | "via" | "stack">,
  filters: Pick<HistoryFilters, "stack" | "actor">,
): boolean {
  return (filters.stack === "" || entry.stack === filters.stack) && matchesActor(entry, filters.actor);
}

export function matchesResult(entry: Pick<HistoryEntry, "success">, result: ResultFilter): boolean {
  return result === "all" || entry.success === (result === "succeeded");
}

export function isFiltered(filters: HistoryFilters): boolean {
  return filters.stack !== "" || filters.result !== "all" || filters.actor !== "";
}

/** Filters from the page address (?stack=&result=&actor=), so a filtered view can be shared. */
export function filtersFromSearch(search: URLSearchParams): HistoryFilters {
  const result = search.get("result");
  const actor = search.get("actor") ?? "";
  return {
    stack: search.get("stack") ?? "",
    result: result === "succeeded" || result === "failed" ? result : "all",
    actor:
      actor === "via:session" || actor === "via:apiKey" || actor.startsWith("actor:")
        ? (actor as ActorFilter)
        : "",
  };
}

/** Writes the filters into the address without a reload or a new history step. */
export function showFiltersInAddress(filters: HistoryFilters): void {
  const url = new URL(window.location.href);
  for (const [name, value] of Object.entries(filters)) {
    if (value === "" || value === "all") url.searchParams.delete(name);
    else url.searchParams.set(name, value);
  }
  window.history.replaceState(window.history.state, "", url);
}

/**
 * The history with the deploys that finished a moment ago on top, as the live events told them, until
 * the refetched list holds them: so a running row turns into its result without vanishing in between.
 */
export function withJustFinished(history: HistoryEntry[], justFinished: FinishedRun[]): HistoryEntry[] {
  const recorded = (run: FinishedRun) =>
    history.some(
      (entry) =>
        entry.stack === run.stack &&
        entry.action === run.action &&
        entry.actor === run.actorName &&
        entry.createdAt.getTime() >= run.startedAt.getTime(),
    );
  const pending = justFinished
    .filter((run) => !recorded(run))
    .map((run) => ({
      id: run.id,
      createdAt: run.finishedAt,
      actor: run.actorName,
      via: run.via,
      stack: run.stack,
      action: run.action,
      success: run.success,
      message: run.message,
    }))
    .reverse();
  return pending.length === 0 ? history : [...pending, ...history];
}
