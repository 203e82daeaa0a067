import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Absolute path of the stand-in `trivy` executable (see stand-in-trivy.mjs for what it answers). */
export const standInTrivyPath: string = fileURLToPath(new URL("./bin/trivy", import.meta.url));

/** One run of the stand-in, assembled from the start and end lines of its run log. */
export interface StandInTrivyRun {
  pid: number;
  image: string | null;
  args: string[];
  /** Names (never values) of the environment variables the run received. */
  envNames: string[];
  /** Milliseconds since the epoch, sub-millisecond precision. */
  start: number;
  /** Null when the process died without a word (SIGKILL); SIGTERM is logged as "terminated". */
  end: number | null;
  /** report, unauthorized, not-found, unavailable, timeout, crash, usage-error, help or terminated. */
  outcome: string | null;
}

type RunLogLine =
  | { phase: "start"; pid: number; image: string | null; at: number; args: string[]; envNames: string[] }
  | { phase: "end"; pid: number; at: number; outcome: string };

/** Reads the file named in STANDIN_TRIVY_LOG; a missing file means no run ever started. */
export function readStandInTrivyRuns(logPath: string): StandInTrivyRun[] {
  let text: string;
  try {
    text = readFileSync(logPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const runs: StandInTrivyRun[] = [];
  const openRunByPid = new Map<number, StandInTrivyRun>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const entry = JSON.parse(line) as RunLogLine;
    if (entry.phase === "start") {
      const { pid, image, args, envNames, at } = entry;
      const run: StandInTrivyRun = { pid, image, args, envNames, start: at, end: null, outcome: null };
      runs.push(run);
      openRunByPid.set(pid, run);
    } else {
      const run = openRunByPid.get(entry.pid);
      if (run) {
        run.end = entry.at;
        run.outcome = entry.outcome;
        openRunByPid.delete(entry.pid);
      }
    }
  }
  return runs;
}

/**
 * The largest number of runs that were in progress at the same moment. A run
 * without an end counts as running forever, so the figure can only err high.
 */
export function maxOverlappingRuns(runs: readonly StandInTrivyRun[]): number {
  const events = runs.flatMap((run) => [
    { at: run.start, change: 1 },
    { at: run.end ?? Number.POSITIVE_INFINITY, change: -1 },
  ]);
  // At equal times an end sorts before a start: back-to-back runs do not overlap.
  events.sort((a, b) => a.at - b.at || a.change - b.change);
  let running = 0;
  let most = 0;
  for (const event of events) {
    running += event.change;
    most = Math.max(most, running);
  }
  return most;
}
