// First: zod must be told not to probe for eval before any schema module runs (the page's CSP forbids it).
import "../../lib/zod-without-eval.ts";
import type { finishedRun } from "@stackgate/contract";
import { type HistoryFilters, type historyEntry, historyFilters } from "@stackgate/contract/history.ts";
import type { z } from "zod";

export type HistoryEntry = z.infer<typeof historyEntry>;
export type FinishedRun = z.infer<typeof finishedRun>;
export type ResultFilter = "all" | "succeeded" | "failed";

/**
 * Who to show: everyone (""), all people or all pipelines (`via:session`, `via:apiKey`), or one
 * actor exactly as the history names it (`actor:API Key: deploy-web`).
 */
export type ActorFilter = "" | `via:${HistoryEntry["via"]}` | `actor:${string}`;

/** The History page's filters, as its controls and its address hold them. */
export interface HistoryPageFilters {
  stack: string;
  result: ResultFilter;
  actor: ActorFilter;
  /** Only the deploys that changed what runs of this image reference. */
  image: string;
}

export const NO_FILTERS: HistoryPageFilters = { stack: "", result: "all", actor: "", image: "" };

const API_KEY_PREFIX = "API Key: ";

/** Whether the history names a pipeline's key as this actor (`API Key: <name>`). */
export const isKeyActor = (actor: string) => actor.startsWith(API_KEY_PREFIX);

/** The name to show for an actor: a key's own name without the "API Key: " the history adds. */
export function actorDisplayName(actor: string, via: HistoryEntry["via"]): string {
  return via === "apiKey" && isKeyActor(actor) ? actor.slice(API_KEY_PREFIX.length) : actor;
}

/** The filters as the API takes them: the server narrows the history and pages through the rest. */
export function apiFilters({ stack, result, actor, image }: HistoryPageFilters): HistoryFilters {
  const filters: HistoryFilters = {};
  if (stack !== "") filters.stack = stack;
  if (image !== "") filters.image = image;
  if (result !== "all") filters.outcome = result === "succeeded" ? "success" : "failure";
  if (actor === "via:session") filters.via = "session";
  else if (actor === "via:apiKey") filters.via = "apiKey";
  else if (actor.startsWith("actor:")) filters.actor = actor.slice("actor:".length);
  return filters;
}

/**
 * Whether a deploy the live events told of belongs in the list the filters ask for (the API filters the
 * recorded ones); without a result yet, it belongs only where results are not filtered.
 */
export function matchesFilters(
  run: Pick<HistoryEntry, "actor" | "via" | "stack"> & {
    success?: boolean;
    changes?: HistoryEntry["changes"];
  },
  filters: HistoryPageFilters,
): boolean {
  const { stack, actor, via, outcome, image } = apiFilters(filters);
  return (
    (stack === undefined || run.stack === stack) &&
    (image === undefined ||
      (run.changes?.some((change) => change.image === image && change.from !== change.to) ?? false)) &&
    (actor === undefined || run.actor === actor) &&
    (via === undefined || run.via === via) &&
    (outcome === undefined || run.success === (outcome === "success"))
  );
}

export function isFiltered(filters: HistoryPageFilters): boolean {
  return filters.stack !== "" || filters.result !== "all" || filters.actor !== "" || filters.image !== "";
}

/**
 * Filters from the page address (?stack=&result=&actor=&image=), so a filtered view can be shared. A value the
 * API would refuse (a stack name it cannot have) is left out rather than shown as an error.
 */
export function filtersFromSearch(search: URLSearchParams): HistoryPageFilters {
  const result = search.get("result");
  const stack = search.get("stack") ?? "";
  const actor = search.get("actor") ?? "";
  const image = search.get("image") ?? "";
  const validActor =
    actor.startsWith("actor:") && historyFilters.shape.actor.safeParse(actor.slice(6)).success;
  return {
    stack: historyFilters.shape.stack.safeParse(stack).success ? stack : "",
    result: result === "succeeded" || result === "failed" ? result : "all",
    actor: actor === "via:session" || actor === "via:apiKey" || validActor ? (actor as ActorFilter) : "",
    image: historyFilters.shape.image.safeParse(image).success ? image : "",
  };
}

/** Writes the filters into the address without a reload or a new history step. */
export function showFiltersInAddress(filters: HistoryPageFilters): void {
  const url = new URL(window.location.href);
  for (const [name, value] of Object.entries(filters)) {
    if (value === "" || value === "all") url.searchParams.delete(name);
    else url.searchParams.set(name, value);
  }
  window.history.replaceState(window.history.state, "", url);
}

/**
 * The history with the deploys that finished a moment ago on top, as the live events told them, until
 * the refetched list holds them (a history entry has its run's id): so a running row turns into its
 * result without vanishing in between.
 */
export function withJustFinished(history: HistoryEntry[], justFinished: FinishedRun[]): HistoryEntry[] {
  const recorded = new Set(history.map((entry) => entry.id));
  const pending = justFinished
    .filter((run) => !recorded.has(run.id))
    .map((run) => ({
      id: run.id,
      createdAt: run.finishedAt,
      actor: run.actorName,
      via: run.via,
      // Who exactly acted comes with the history's own entry, which replaces this one.
      by: { userId: null, email: null, keyId: null },
      stack: run.stack,
      action: run.action,
      success: run.success,
      message: run.message,
      changes: run.changes,
      commit: run.commit,
      settle: run.settle,
    }))
    .reverse();
  return pending.length === 0 ? history : [...pending, ...history];
}
