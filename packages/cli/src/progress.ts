import { formatElapsed } from "./duration.ts";
import { printable } from "./exit.ts";
import { type RunStage, stageLines } from "./stages.ts";

/** How each of Komodo's steps reads in the progress line; other step names are shown as they come. */
const STEP_LABELS: Record<string, string> = {
  pull: "pulling images",
  "take-down": "taking the stack down",
  deploy: "deploying",
};

export const stepLabel = (step: string) => STEP_LABELS[step] ?? printable(step);

export interface Progress {
  /** The run was accepted by Stackgate; `how` says more than "started" (an earlier attempt's run). */
  started(runId: string, how?: string): void;
  step(step: string): void;
  /** A stage of Komodo's with its output (only its name and result when quiet). */
  stage(stage: RunStage): void;
  /** The deploy succeeded; Stackgate watches whether it stays up until `until` (ISO 8601). */
  settling(until: string): void;
  /** Something worth a line of its own (a retry, a reconnect). */
  note(text: string): void;
  /** Stops redrawing; the caller prints the outcome next. */
  stop(): void;
}

export interface ProgressOptions {
  stream: NodeJS.WritableStream & { isTTY?: boolean };
  what: string;
  /** Plain lines even on a terminal (`CI` set, or --no-progress). */
  plain?: boolean;
  /** Stages by name and result only, without their command and output (--quiet). */
  quiet?: boolean;
  /** Default Date.now. */
  now?: () => number;
  /** On a plain (non-TTY) output, a "still running" line this often; default 30 s. */
  heartbeatMs?: number;
}

/**
 * Progress on stderr, once Stackgate accepted the run: on a terminal one line redrawn every second
 * (elapsed time, current step); elsewhere (CI logs, files, `plain`) a plain line per change and a
 * "still running" line now and then.
 */
export function createProgress({
  stream,
  what,
  plain = false,
  quiet = false,
  now = Date.now,
  heartbeatMs = 30_000,
}: ProgressOptions): Progress {
  const startedAt = now();
  let currentStep: string | undefined;
  const elapsed = () => formatElapsed(now() - startedAt);
  const stepText = () => (currentStep ? stepLabel(currentStep) : "waiting for Komodo");
  const settleText = (until: string) => `deployed; watching whether it stays up until ${clockOf(until)}`;

  // Nothing is drawn, and nothing said of Komodo, before a run exists.
  let timer: NodeJS.Timeout | undefined;
  if (stream.isTTY && !plain) {
    const draw = () => {
      if (timer) stream.write(`\r\u001b[2K${what} · ${stepText()} · ${elapsed()}`);
    };
    const clear = () => {
      if (timer) stream.write("\r\u001b[2K");
    };
    return {
      started(runId, how) {
        if (how) stream.write(`${what}: ${how} (run ${runId})\n`);
        timer ??= setInterval(draw, 1_000);
        draw();
      },
      step(step) {
        currentStep = step;
        draw();
      },
      note(text) {
        clear();
        stream.write(`${text}\n`);
        draw();
      },
      stage(stage) {
        clear();
        stream.write(`${stageLines(stage, { quiet }).join("\n")}\n`);
        draw();
      },
      settling(until) {
        currentStep = settleText(until);
        draw();
      },
      stop() {
        clear();
        clearInterval(timer);
        timer = undefined;
      },
    };
  }

  const line = (text: string) => stream.write(`[${elapsed()}] ${text}\n`);
  return {
    started(runId, how = "started") {
      line(`${what}: ${how} (run ${runId})`);
      timer ??= setInterval(() => line(`still running: ${stepText()}`), heartbeatMs);
    },
    step(step) {
      if (step === currentStep) return;
      currentStep = step;
      line(`step: ${stepLabel(step)}`);
    },
    note: line,
    stage: (stage) => line(stageLines(stage, { quiet }).join("\n")),
    settling(until) {
      currentStep = settleText(until);
      line(currentStep);
    },
    stop: () => clearInterval(timer),
  };
}

/** The time of an ISO 8601 instant, as CI logs show times: `10:15:41 UTC`. */
const clockOf = (iso: string) => `${/T(\d\d:\d\d:\d\d)/.exec(iso)?.[1] ?? printable(iso)} UTC`;
