import { RUN_LOG_LIMIT_BYTES, type runStage } from "@stackgate/contract";
import type { z } from "zod";
import type { StoredStage } from "../db/schema.ts";
import type { KomodoUpdate } from "../upstream/komodo-client.ts";

export type RunStage = z.infer<typeof runStage>;

/** A run's stages so far: what it keeps (at most 256 KiB of output, the cut marked) and whether it cut. */
export interface RunLog {
  stages: RunStage[];
  truncated: boolean;
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/**
 * The end of `text` within `budget` bytes, the cut marked: compose writes its progress first and
 * its error last, so the end is what explains a failure.
 */
function keepEnd(text: string, budget: number): string {
  if (bytes(text) <= budget) return text;
  const note = "[… the start of this output was cut: a run keeps 256 KiB of output]\n";
  const room = Math.max(0, budget - bytes(note));
  if (room === 0) return note.trimEnd();
  let kept = Buffer.from(text, "utf8").subarray(-room).toString("utf8");
  // A cut inside a multi-byte character leaves a replacement character at the start.
  if (kept.startsWith("\uFFFD")) kept = kept.slice(1);
  return note + kept;
}

/** Komodo's log entries of a completed Update, as a run's stages. */
export function stagesOf(update: KomodoUpdate): RunStage[] {
  return update.logs.map((log) => ({
    stage: log.stage,
    command: log.command || null,
    stdout: log.stdout,
    stderr: log.stderr,
    success: log.success,
    startedAt: typeof log.start_ts === "number" ? new Date(log.start_ts) : null,
    endedAt: typeof log.end_ts === "number" ? new Date(log.end_ts) : null,
  }));
}

/**
 * Adds stages to a run's log within its budget, and returns the stages as kept (those to announce).
 * Once the budget is spent, a stage keeps the end of its output, and later ones keep nothing of it.
 */
export function appendStages(log: RunLog, stages: RunStage[]): RunStage[] {
  let used = log.stages.reduce((sum, stage) => sum + bytes(stage.stdout) + bytes(stage.stderr), 0);
  const kept = stages.map((stage) => {
    const left = Math.max(0, RUN_LOG_LIMIT_BYTES - used);
    const size = bytes(stage.stdout) + bytes(stage.stderr);
    if (size <= left) {
      used += size;
      return stage;
    }
    log.truncated = true;
    const stderr = keepEnd(stage.stderr, Math.floor(left / 2));
    const stdout = keepEnd(stage.stdout, left - bytes(stderr));
    used += bytes(stdout) + bytes(stderr);
    return { ...stage, stdout, stderr };
  });
  log.stages.push(...kept);
  return kept;
}

export const storedStages = (stages: RunStage[]): StoredStage[] =>
  stages.map((stage) => ({
    ...stage,
    startedAt: stage.startedAt?.getTime() ?? null,
    endedAt: stage.endedAt?.getTime() ?? null,
  }));

export const revivedStages = (stages: StoredStage[]): RunStage[] =>
  stages.map((stage) => ({
    ...stage,
    startedAt: stage.startedAt === null ? null : new Date(stage.startedAt),
    endedAt: stage.endedAt === null ? null : new Date(stage.endedAt),
  }));
