/**
 * What a deploy run's record says, in the words the dashboard shows: its outcome with the settle
 * window, what changed per service, and its stages as they arrive. Pure, so the run page, the
 * history and the overview agree, and the tests can say exactly what each case reads as.
 */
import type { finishedRun, runSettle, runStage, serviceChange } from "@stackgate/contract";
import type { z } from "zod";
import type { Tone } from "../ui/tone.ts";

export type ServiceChange = z.infer<typeof serviceChange>;
export type RunSettle = z.infer<typeof runSettle>;
export type RunStage = z.infer<typeof runStage>;
export type FinishedRun = z.infer<typeof finishedRun>;

/** How a run stands, settle window included: a success that did not stay up is not a failure. */
export type RunOutcome = "running" | "failed" | "unstable" | "watching" | "succeeded";

export function outcomeOf(run: { success?: boolean; settle?: RunSettle | null }): RunOutcome {
  if (run.success === undefined) return "running";
  if (!run.success) return "failed";
  if (run.settle?.state === "unstable") return "unstable";
  if (run.settle?.state === "watching") return "watching";
  return "succeeded";
}

/** Unstable is amber, as the palette has it for restarting and unhealthy; watching is still in progress. */
export const OUTCOME_TONES: Record<RunOutcome, Tone> = {
  running: "progress",
  failed: "danger",
  unstable: "warning",
  watching: "progress",
  succeeded: "success",
};

/** Characters of a digest shown where room is short; the whole one is on hover and copied. */
const SHORT_DIGEST_LENGTH = 8;

/**
 * "sha256:3f2a9c1d4e…" as "3f2a9c1d…": without the algorithm, cut to what tells builds apart. A
 * value this short already (or of another form) is shown as it is.
 */
export function shortDigest(digest: string): string {
  const hex = digest.replace(/^[a-z0-9]+:/i, "");
  return hex.length > SHORT_DIGEST_LENGTH ? `${hex.slice(0, SHORT_DIGEST_LENGTH)}…` : hex;
}

/** How one service changed: a digest that differs, the same digest, or a side nobody could read. */
export type ChangeKind = "changed" | "same" | "unknown";

export function changeKind({ from, to }: Pick<ServiceChange, "from" | "to">): ChangeKind {
  if (from === null || to === null) return "unknown";
  return from === to ? "same" : "changed";
}

/**
 * What a run changed, in short: nothing recorded (older runs, Komodo unread), no change at all
 * (every digest known and the same), or the services whose digest changed or is unknown, in order.
 */
export type ChangesSummary =
  | { kind: "not-recorded" }
  | { kind: "no-change" }
  | { kind: "changes"; shown: ServiceChange[] };

export function summarizeChanges(changes: readonly ServiceChange[]): ChangesSummary {
  if (changes.length === 0) return { kind: "not-recorded" };
  const shown = changes.filter((change) => changeKind(change) !== "same");
  return shown.length === 0 ? { kind: "no-change" } : { kind: "changes", shown };
}

/**
 * A run's stages with the ones a `log` event brought. An event may repeat what a read of the logs
 * already holds (both can see one step's stages): a stage recorded exactly alike is kept once.
 */
export function withNewStages(known: readonly RunStage[], incoming: readonly RunStage[]): RunStage[] {
  const key = (stage: RunStage) =>
    JSON.stringify([
      stage.stage,
      stage.command,
      stage.startedAt?.getTime() ?? null,
      stage.endedAt?.getTime() ?? null,
      stage.success,
      stage.stdout.length,
      stage.stderr.length,
    ]);
  const seen = new Set(known.map(key));
  const fresh = incoming.filter((stage) => !seen.has(key(stage)));
  return fresh.length === 0 ? [...known] : [...known, ...fresh];
}

/** The stage to show open at first: the first that failed, if any. */
export function firstFailedStage(stages: readonly RunStage[]): number {
  return stages.findIndex((stage) => !stage.success);
}

/** The dashboard's address of a run, as a pipeline's output can print it. */
export const runHref = (id: string) => `/runs/${encodeURIComponent(id)}`;

const RUN_PREFIX = "/runs/";

/** The run id in a run page's address, the inverse of `runHref`; null when malformed. */
export function runIdFromPath(pathname: string): string | null {
  const raw = pathname.startsWith(RUN_PREFIX) ? pathname.slice(RUN_PREFIX.length) : "";
  if (raw === "" || raw.includes("/")) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}
