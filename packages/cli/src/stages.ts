import { CliError, printable } from "./exit.ts";
import type { Api } from "./http.ts";

/** One Komodo stage of a run (`Compose Pull`, `Compose Up`, …) with its output, as Stackgate keeps it. */
export interface RunStage {
  stage: string;
  command: string | null;
  stdout: string;
  stderr: string;
  success: boolean;
}

/**
 * Stage output as a terminal may show it: without the HTML markup Komodo puts around its labels,
 * colour and cursor escapes, or other control characters (Stackgate removes them too).
 */
export const stageOutput = (text: string) =>
  printable(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
    text.replace(/<\/?span[^>]*>/g, "").replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, ""),
  ).trimEnd();

/**
 * A stage as the CLI prints it: its name and result, then (unless `quiet`) its command and its
 * output, indented. Compose writes its progress to stderr, so both streams are shown as they came.
 */
export function stageLines(stage: RunStage, { quiet = false } = {}): string[] {
  const lines = [`stage ${printable(stage.stage)} (${stage.success ? "ok" : "failed"})`];
  if (quiet) return lines;
  if (stage.command) lines.push(`  $ ${printable(stage.command)}`);
  for (const text of [stage.stdout, stage.stderr]) {
    const output = stageOutput(text);
    if (output) lines.push(...output.split("\n").map((line) => `    ${line}`));
  }
  return lines;
}

/** The stage that failed the run, as its result tells it: the last one that failed. */
export const failedStage = (stages: RunStage[]): RunStage | undefined =>
  stages.filter((stage) => !stage.success).at(-1);

const isStage = (value: unknown): value is RunStage =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as RunStage).stage === "string" &&
  typeof (value as RunStage).success === "boolean";

const asStage = (value: RunStage): RunStage => ({
  stage: value.stage,
  command: typeof value.command === "string" ? value.command : null,
  stdout: typeof value.stdout === "string" ? value.stdout : "",
  stderr: typeof value.stderr === "string" ? value.stderr : "",
  success: value.success,
});

export interface StageLog {
  /**
   * A `log` event's stages. The run's log is read again (`GET …/logs`), and what was not printed
   * yet is printed: an event missed while no stream was open, or one a new stream repeats, is neither
   * lost nor printed twice. Where Stackgate has no such endpoint, the event's stages are printed.
   * Resolves once they are printed (never rejects).
   */
  heard(stages: unknown): Promise<void>;
  /** Reads the run's log and prints the stages not printed yet; resolves once done (never rejects). */
  sync(): Promise<void>;
  /** The stages printed so far, in order. */
  readonly stages: RunStage[];
}

/**
 * The stages of one run, each printed once, in order: by how many were printed, against the run's
 * log as Stackgate keeps it (it only grows).
 */
export function createStageLog(
  api: Api,
  runId: string,
  print: (stage: RunStage) => void,
  signal?: AbortSignal,
): StageLog {
  const stages: RunStage[] = [];
  /** Whether `GET /api/v0/deploy/runs/{id}/logs` answers: unknown until first asked. */
  let endpoint: boolean | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const take = (stage: RunStage) => {
    stages.push(stage);
    print(stage);
  };

  async function readOnce() {
    try {
      const answer = await api.call("GET", `/api/v0/deploy/runs/${encodeURIComponent(runId)}/logs`, {
        signal,
        attemptTimeoutMs: 10_000,
      });
      if (answer.status === 200 && Array.isArray(answer.json?.stages)) {
        endpoint = true;
        const kept = (answer.json.stages as unknown[]).filter(isStage).map(asStage);
        kept.slice(stages.length).forEach(take);
      } else if (answer.status === 403 || answer.status === 404) endpoint = false;
    } catch (error) {
      // A 404 from a Stackgate without the endpoint; anything else (a dropped connection) is read next time.
      if (error instanceof CliError) endpoint = false;
    }
  }

  function sync(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        if (endpoint !== false && !signal?.aborted) await readOnce();
      } while (again);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    async heard(told) {
      const fresh = Array.isArray(told) ? told.filter(isStage).map(asStage) : [];
      if (endpoint !== false) await sync();
      if (endpoint === false) fresh.forEach(take);
    },
    sync,
    stages,
  };
}
