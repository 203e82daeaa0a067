import { randomUUID } from "node:crypto";
import { eventPayloads } from "./event-stream.ts";
import { CliError, EXIT, printable } from "./exit.ts";
import {
  type Api,
  answerMessage,
  defaultBackoffMs,
  describeFailure,
  sleep,
  unexpectedAnswer,
} from "./http.ts";
import type { Progress } from "./progress.ts";

export const DEPLOY_ACTIONS = ["pull", "redeploy", "pull-redeploy"] as const;
export type DeployAction = (typeof DEPLOY_ACTIONS)[number];

/** How long `deploy` keeps retrying to start the run while Stackgate or a proxy in front is unreachable. */
export const START_RETRY_MS = 120_000;

export interface DeployResult {
  outcome: "succeeded" | "failed" | "timeout";
  success: boolean;
  /** Komodo's reason on a failure; Stackgate's summary on a success. */
  message: string;
  stack: string;
  action: DeployAction;
  /** Absent only when an older Stackgate answered synchronously. */
  runId?: string;
  startedAt?: string;
  finishedAt?: string;
}

interface RunView {
  id: string;
  step?: string;
  success?: boolean;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
}

export interface DeployOptions {
  api: Api;
  stack: string;
  action: DeployAction;
  timeoutMs: number;
  progress: Progress;
  /** How often the run is read while the event stream is down; default 2 s (10 s while it is up). */
  pollIntervalMs?: number;
  now?: () => number;
}

/**
 * Starts the run asynchronously (`Prefer: respond-async`) under one Idempotency-Key, so that the
 * retries of a lost answer never deploy twice, then follows it to its end or to the time limit.
 */
export async function deploy(options: DeployOptions): Promise<DeployResult> {
  const { api, stack, action, progress } = options;
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  const base = { stack, action };
  const answer = await api.call("POST", "/api/v0/deploy", {
    body: { stack, action },
    headers: { prefer: "respond-async", "idempotency-key": randomUUID() },
    retryUntil: Math.min(deadline, now() + START_RETRY_MS),
  });

  if (answer.status === 200 && answer.json?.success === true)
    // A Stackgate without asynchronous runs answered once the deploy was over.
    return { ...base, outcome: "succeeded", success: true, message: printable(String(answer.json.message)) };
  if (answer.json?.success === false)
    return { ...base, outcome: "failed", success: false, message: answerMessage(answer) };
  if (answer.status !== 202 || typeof answer.json?.run?.id !== "string")
    throw unexpectedAnswer(answer, `deploy '${stack}'`);

  const run: RunView = answer.json.run;
  progress.started(run.id);
  const finished = await followRun(api, run.id, {
    deadline,
    progress,
    pollIntervalMs: options.pollIntervalMs,
  });
  const known = { ...base, runId: run.id, startedAt: run.startedAt };
  if (!finished)
    return {
      ...known,
      outcome: "timeout",
      success: false,
      message: `The run did not finish within the time limit; it goes on in Stackgate (run ${run.id})`,
    };
  return {
    ...known,
    outcome: finished.success ? "succeeded" : "failed",
    success: finished.success === true,
    message: printable(finished.message ?? ""),
    finishedAt: finished.finishedAt,
  };
}

/**
 * Follows one run until it has finished (resolves with it) or the deadline passes (undefined). The
 * event stream brings the end and the steps at once and is reopened whenever it drops; the run is
 * also read now and then (often while the stream is down), so nothing is lost between two streams.
 */
function followRun(
  api: Api,
  runId: string,
  {
    deadline,
    progress,
    pollIntervalMs = 2_000,
  }: { deadline: number; progress: Progress; pollIntervalMs?: number },
): Promise<RunView | undefined> {
  const stop = new AbortController();
  const { signal } = stop;
  let streamUp = false;
  let wakePoll: (() => void) | undefined;
  const pollNow = () => wakePoll?.();

  return new Promise<RunView | undefined>((resolve, reject) => {
    const end = (outcome: () => void) => {
      if (signal.aborted) return;
      stop.abort();
      clearTimeout(deadlineTimer);
      pollNow();
      outcome();
    };
    const deadlineTimer = setTimeout(() => end(() => resolve(undefined)), Math.max(0, deadline - Date.now()));
    const inspect = (run: unknown) => {
      if (!isRun(run) || run.id !== runId) return;
      if (typeof run.success === "boolean") end(() => resolve(run));
      else if (typeof run.step === "string" && run.step) progress.step(run.step);
    };

    async function followStream() {
      for (let failures = 0; !signal.aborted; failures++) {
        let reason: string;
        try {
          const response = await api.open("/api/v0/deploy/events", signal);
          if (response.status === 403 || response.status === 404) {
            await response.body?.cancel();
            progress.note(
              `The event stream is not open to this key (${response.status}); following the run by polling`,
            );
            return;
          }
          if (!response.ok || !response.body) {
            await response.body?.cancel();
            throw new Error(`it answered ${response.status}`);
          }
          for await (const event of eventPayloads(response.body)) {
            if (isObject(event) && event.type === "subscribed") {
              streamUp = true;
              failures = 0;
              // Whatever happened while no stream was open is read from the run itself.
              pollNow();
              if (Array.isArray(event.running)) event.running.forEach(inspect);
            } else if (isObject(event)) {
              inspect(event.run);
            }
          }
          reason = "it closed";
        } catch (error) {
          if (signal.aborted) return;
          reason = describeFailure(error);
        }
        streamUp = false;
        if (signal.aborted) return;
        progress.note(`The event stream was interrupted (${reason}); reconnecting`);
        pollNow();
        await sleep(Math.min(defaultBackoffMs(failures), 5_000), signal);
      }
    }

    async function pollRun() {
      while (!signal.aborted) {
        const answer = await api
          .call("GET", `/api/v0/deploy/runs/${encodeURIComponent(runId)}`, {
            signal,
            attemptTimeoutMs: 15_000,
          })
          .catch(() => undefined);
        if (signal.aborted) return;
        if (answer?.status === 200) inspect(answer.json?.run ?? answer.json);
        else if (answer?.status === 401 || answer?.status === 403)
          throw unexpectedAnswer(answer, `read the run ${runId}`);
        await new Promise<void>((wake) => {
          const timer = setTimeout(wake, streamUp ? Math.max(pollIntervalMs, 10_000) : pollIntervalMs);
          wakePoll = () => {
            clearTimeout(timer);
            wake();
          };
        });
      }
    }

    const fail = (error: unknown) => end(() => reject(error));
    followStream().catch(fail);
    pollRun().catch(fail);
  });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;
const isRun = (value: unknown): value is RunView => isObject(value) && typeof value.id === "string";

export function parseAction(text: string): DeployAction {
  if ((DEPLOY_ACTIONS as readonly string[]).includes(text)) return text as DeployAction;
  throw new CliError(
    `--action must be one of ${DEPLOY_ACTIONS.join(", ")} (got '${printable(text)}')`,
    EXIT.usage,
  );
}
