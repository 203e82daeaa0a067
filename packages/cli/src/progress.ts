import { formatElapsed } from "./duration.ts";
import { printable } from "./exit.ts";

/** How each of Komodo's steps reads in the progress line; other step names are shown as they come. */
const STEP_LABELS: Record<string, string> = {
  pull: "pulling images",
  "take-down": "taking the stack down",
  deploy: "deploying",
};

export const stepLabel = (step: string) => STEP_LABELS[step] ?? printable(step);

export interface Progress {
  /** The run was accepted by Stackgate. */
  started(runId: string): void;
  step(step: string): void;
  /** Something worth a line of its own (a retry, a reconnect). */
  note(text: string): void;
  /** Stops redrawing; the caller prints the outcome next. */
  stop(): void;
}

export interface ProgressOptions {
  stream: NodeJS.WritableStream & { isTTY?: boolean };
  what: string;
  /** Default Date.now. */
  now?: () => number;
  /** On a plain (non-TTY) output, a "still running" line this often; default 30 s. */
  heartbeatMs?: number;
}

/**
 * Progress on stderr: on a terminal one line redrawn every second (elapsed time, current step);
 * elsewhere (CI logs, files) a plain line per change and a "still running" line now and then.
 */
export function createProgress({
  stream,
  what,
  now = Date.now,
  heartbeatMs = 30_000,
}: ProgressOptions): Progress {
  const startedAt = now();
  let currentStep: string | undefined;
  const elapsed = () => formatElapsed(now() - startedAt);
  const stepText = () => (currentStep ? stepLabel(currentStep) : "waiting for Komodo");

  if (stream.isTTY) {
    const draw = () => stream.write(`\r\u001b[2K${what} · ${stepText()} · ${elapsed()}`);
    const timer = setInterval(draw, 1_000);
    const clear = () => stream.write("\r\u001b[2K");
    return {
      started: draw,
      step(step) {
        currentStep = step;
        draw();
      },
      note(text) {
        clear();
        stream.write(`${text}\n`);
        draw();
      },
      stop() {
        clearInterval(timer);
        clear();
      },
    };
  }

  const line = (text: string) => stream.write(`[${elapsed()}] ${text}\n`);
  const heartbeat = setInterval(() => line(`still running: ${stepText()}`), heartbeatMs);
  return {
    started: (runId) => line(`${what}: started (run ${runId})`),
    step(step) {
      if (step === currentStep) return;
      currentStep = step;
      line(`step: ${stepLabel(step)}`);
    },
    note: line,
    stop: () => clearInterval(heartbeat),
  };
}
