import { eventPayloads } from "./event-stream.ts";
import { CliError, EXIT, type Outcome, printable, type StopSignal } from "./exit.ts";
import {
  type Answer,
  type Api,
  answerMessage,
  defaultBackoffMs,
  describeFailure,
  sleep,
  unexpectedAnswer,
} from "./http.ts";
import { nearestNames } from "./nearest.ts";
import type { Progress } from "./progress.ts";
import { createStageLog, failedStage, type RunStage } from "./stages.ts";

export const DEPLOY_ACTIONS = ["pull", "redeploy", "pull-redeploy"] as const;
export type DeployAction = (typeof DEPLOY_ACTIONS)[number];

export interface DeployResult {
  outcome: Exclude<Outcome, "refused">;
  success: boolean;
  /** Komodo's reason on a failure; Stackgate's summary on a success. */
  message: string;
  stack: string;
  action: DeployAction;
  /** Absent when no run was accepted, or an older Stackgate answered synchronously. */
  runId?: string;
  startedAt?: string;
  finishedAt?: string;
  /** An earlier attempt of this job (the same Idempotency-Key) had started the run; nothing was deployed again. */
  attached?: boolean;
  /** The signal that stopped the command (outcome `detached`). */
  stoppedBy?: StopSignal;
  /** Whether the deploy stayed up, as far as known when the command ended. */
  settle?: RunSettle;
  /** The Komodo stage that failed a failed run, with its output. */
  failedStage?: RunStage;
}

/** Whether a deploy stayed up: its services watched for a while after it succeeded. */
export interface RunSettle {
  state: "watching" | "stable" | "unstable" | "skipped";
  reason: string | null;
  until: string | null;
}

interface RunView {
  id: string;
  stack?: string;
  action?: DeployAction;
  step?: string;
  success?: boolean;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  settle?: RunSettle | null;
}

export interface FollowOptions {
  api: Api;
  timeoutMs: number;
  progress: Progress;
  /** Aborted with a signal's name (SIGINT, SIGTERM): stop following; the run goes on in Stackgate. */
  stop?: AbortSignal;
  /** How often the run is read while the event stream is down; default 2 s (10 s while it is up). */
  pollIntervalMs?: number;
  /** After a successful run, follow its settle window to its end (stable or unstable). */
  waitStable?: boolean;
  now?: () => number;
}

export interface DeployOptions extends FollowOptions {
  stack: string;
  action: DeployAction;
  idempotencyKey: string;
  /** Return once Stackgate accepted the run, without following it. */
  detach?: boolean;
  /** How long Stackgate watches the services after a successful redeploy; default its SETTLE_SECONDS. */
  settleSeconds?: number;
  /** Told the run's id as soon as Stackgate accepted it. */
  onRun?: (runId: string) => void;
}

const stopSignalOf = (stop: AbortSignal | undefined): StopSignal =>
  stop?.reason === "SIGTERM" ? "SIGTERM" : "SIGINT";

/**
 * Checks what can be checked (the stack exists, the key may deploy it), then starts the run
 * asynchronously (`Prefer: respond-async`) under one Idempotency-Key, so that the retries of a lost
 * answer, and re-runs of the same CI job, never deploy twice; then follows it to its end, to the
 * time limit, or until stopped.
 */
export async function deploy(options: DeployOptions): Promise<DeployResult> {
  const { api, stack, action, progress, stop } = options;
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  const base = { stack, action };
  const stopped = (message: string, more: Partial<DeployResult> = {}): DeployResult => ({
    ...base,
    ...more,
    outcome: "detached",
    success: false,
    message,
    stoppedBy: stopSignalOf(stop),
  });

  try {
    await preflight(api, stack, action, { deadline, stop });
  } catch (error) {
    if (stop?.aborted) return stopped("Stopped before anything was deployed");
    throw error;
  }
  let answer: Answer;
  try {
    answer = await api.call("POST", "/api/v0/deploy", {
      body: {
        stack,
        action,
        ...(options.settleSeconds === undefined ? {} : { settleSeconds: options.settleSeconds }),
      },
      headers: { prefer: "respond-async", "idempotency-key": options.idempotencyKey },
      retryUntil: deadline,
      beforeRun: true,
      signal: stop,
    });
  } catch (error) {
    if (stop?.aborted)
      return stopped(
        "Stopped before Stackgate answered: the deploy may have started; its history shows it, and the same " +
          "command (same idempotency key) attaches to it",
      );
    throw error;
  }

  if (answer.status === 200 && answer.json?.success === true)
    // A Stackgate without asynchronous runs answered once the deploy was over.
    return { ...base, outcome: "succeeded", success: true, message: printable(String(answer.json.message)) };
  if (answer.json?.success === false)
    return { ...base, outcome: "failed", success: false, message: answerMessage(answer) };
  if (answer.status !== 202 || typeof answer.json?.run?.id !== "string")
    throw unexpectedAnswer(answer, `deploy '${stack}'`);

  const run: RunView = answer.json.run;
  // A replay answered to the first attempt is an earlier invocation's run; after a retry, it may be this one's.
  const attached = answer.json.replayed === true && answer.attempts === 1;
  options.onRun?.(run.id);
  const known = { ...base, runId: run.id, startedAt: run.startedAt, ...(attached ? { attached } : {}) };
  if (options.detach)
    return { ...known, outcome: "detached", success: false, message: `Run ${run.id} goes on in Stackgate` };
  progress.started(
    run.id,
    attached
      ? `already started at ${run.startedAt} by an earlier attempt of this job (the same idempotency key); following it`
      : undefined,
  );
  return resultOf(known, await followRun(api, run.id, { ...options, deadline }), stop);
}

/**
 * Follows a run that already exists (`stackgate wait`): to its end, to the time limit, or until
 * stopped. A run this key may not see (or none) is a usage error.
 */
export async function waitForRun(runId: string, options: FollowOptions): Promise<DeployResult> {
  const { api, stop } = options;
  const deadline = (options.now ?? Date.now)() + options.timeoutMs;
  const path = `/api/v0/deploy/runs/${encodeURIComponent(runId)}`;
  let answer: Answer;
  try {
    answer = await api.call("GET", path, { retryUntil: deadline, beforeRun: true, signal: stop });
  } catch (error) {
    if (stop?.aborted) throw new CliError("Stopped before the run was read", EXIT[stopSignalOf(stop)]);
    throw error;
  }
  if (answer.status === 404)
    throw new CliError(
      `No run '${printable(runId)}' (or not one this API key may follow: a key follows the runs it started, or those of the history it may read)`,
      EXIT.usage,
    );
  if (answer.status !== 200 || typeof answer.json?.run?.id !== "string")
    throw unexpectedAnswer(answer, `read the run ${runId}`);
  const run: RunView = answer.json.run;
  const known = {
    stack: String(run.stack),
    action: run.action as DeployAction,
    runId: run.id,
    startedAt: run.startedAt,
  };
  if (typeof run.success === "boolean" && !settling(run, options.waitStable)) {
    // Its stages, read once: there is nothing left to follow.
    const log = createStageLog(api, run.id, (stage) => options.progress.stage(stage), stop);
    await log.sync();
    return resultOf(known, { end: { kind: "finished", run }, stages: log.stages }, stop);
  }
  options.progress.started(run.id, `following the run started at ${run.startedAt}`);
  if (run.step) options.progress.step(run.step);
  return resultOf(known, await followRun(api, run.id, { ...options, deadline }), stop);
}

/** Whether a run's settle window is still open and is to be followed. */
const settling = (run: RunView, waitStable: boolean | undefined) =>
  waitStable === true && run.success === true && run.settle?.state === "watching";

function resultOf(
  known: Omit<DeployResult, "outcome" | "success" | "message">,
  { end, stages }: Followed,
  stop: AbortSignal | undefined,
): DeployResult {
  if (end.kind === "timeout") {
    const until = end.finished?.settle?.until;
    return {
      ...known,
      outcome: "timeout",
      success: false,
      ...(end.finished?.settle ? { settle: end.finished.settle, finishedAt: end.finished.finishedAt } : {}),
      message: end.finished
        ? `The deploy succeeded, but whether it stays up was not known within the time limit: Stackgate watches it until ${until} (run ${known.runId})`
        : `The run did not finish within the time limit; it goes on in Stackgate (run ${known.runId})`,
    };
  }
  if (end.kind === "stopped")
    return {
      ...known,
      outcome: "detached",
      success: false,
      message: `Stopped following run ${known.runId}; it goes on in Stackgate`,
      stoppedBy: stopSignalOf(stop),
    };
  const { run } = end;
  const settle = run.settle ?? undefined;
  const unstable = run.success === true && settle?.state === "unstable";
  const failed = run.success === true ? undefined : failedStage(stages);
  return {
    ...known,
    outcome: unstable ? "unstable" : run.success ? "succeeded" : "failed",
    success: run.success === true && !unstable,
    message: unstable
      ? `Deployed, then unstable: ${printable(settle?.reason ?? "its services did not stay up")}`
      : printable(run.message ?? ""),
    finishedAt: run.finishedAt,
    ...(settle ? { settle } : {}),
    ...(failed ? { failedStage: failed } : {}),
  };
}

/**
 * What can be known before deploying, without deploying: that the key may run the action on the
 * stack (Stackgate's 403 otherwise) and that Komodo has the stack. Each is a usage error (exit 2).
 */
async function preflight(
  api: Api,
  stack: string,
  action: DeployAction,
  { deadline, stop }: { deadline: number; stop?: AbortSignal },
) {
  const query = new URLSearchParams({ stack, action });
  const answer = await api.call("GET", `/api/v0/deploy/check?${query}`, {
    retryUntil: deadline,
    beforeRun: true,
    signal: stop,
  });
  if (answer.status === 200 && answer.json?.exists === true) return;
  if (answer.status === 200 && answer.json?.exists === false) {
    const near = await stackNames(api, stop).then((names) => nearestNames(stack, names));
    const hint =
      near === undefined
        ? " (check the name on Stackgate's Stacks page)"
        : near.length > 0
          ? `. Did you mean ${near.join(", ")}? ('stackgate stacks' lists them)`
          : " ('stackgate stacks' lists the stacks)";
    throw new CliError(`no stack named ${printable(stack)}; nothing was deployed${hint}`, EXIT.usage);
  }
  // No Komodo connection, Komodo unreachable: Stackgate's verdict, as the deploy would get it.
  if (answer.json?.success === false)
    throw new CliError(`Stackgate cannot deploy now: ${answerMessage(answer)}`, EXIT.failed);
  throw unexpectedAnswer(answer, `deploy '${stack}'`);
}

/** The stacks the key may list; undefined when it may not (its scope lacks the `stacks` read). */
async function stackNames(api: Api, stop: AbortSignal | undefined): Promise<string[] | undefined> {
  const answer = await api
    .call("GET", "/api/v0/stacks", { signal: stop, attemptTimeoutMs: 10_000 })
    .catch(() => undefined);
  if (answer?.status !== 200 || !Array.isArray(answer.json?.stacks)) return undefined;
  return answer.json.stacks.map((entry: { name: unknown }) => String(entry.name));
}

/** How following a run ended. */
type FollowEnd =
  | { kind: "finished"; run: RunView }
  /** `finished`: the run had succeeded, and its settle window was still open. */
  | { kind: "timeout"; finished?: RunView }
  | { kind: "stopped" };

interface Followed {
  end: FollowEnd;
  /** The run's stages, as printed. */
  stages: RunStage[];
}

/**
 * Follows one run until it has finished (with `waitStable`, until its settle window ended too), the
 * deadline passes or `stop` aborts. The event stream brings the steps, the stages' output, the end
 * and the settle verdict at once, and is reopened whenever it drops; the run is also read now and
 * then (often while the stream is down), so nothing is lost between two streams. The stages are
 * printed each once, in order, from the run's log (`createStageLog`).
 */
async function followRun(
  api: Api,
  runId: string,
  {
    deadline,
    progress,
    stop,
    pollIntervalMs = 2_000,
    waitStable = false,
  }: FollowOptions & { deadline: number },
): Promise<Followed> {
  const ending = new AbortController();
  const { signal } = ending;
  const stageLog = createStageLog(api, runId, (stage) => progress.stage(stage), signal);
  let streamUp = false;
  let wakePoll: (() => void) | undefined;
  const pollNow = () => wakePoll?.();
  /** The run, once it succeeded while its settle window is still open. */
  let succeeded: RunView | undefined;

  const end = await new Promise<FollowEnd>((resolve, reject) => {
    const end = (outcome: () => void) => {
      if (signal.aborted) return;
      ending.abort();
      clearTimeout(deadlineTimer);
      stop?.removeEventListener("abort", onStop);
      pollNow();
      outcome();
    };
    const deadlineTimer = setTimeout(
      () => end(() => resolve({ kind: "timeout", finished: succeeded })),
      Math.max(0, deadline - Date.now()),
    );
    const onStop = () => end(() => resolve({ kind: "stopped" }));
    if (stop?.aborted) onStop();
    stop?.addEventListener("abort", onStop, { once: true });
    // What is printed keeps the order of the events: a stage read from the log before the next step,
    // every stage before the settle line and the outcome.
    let printed = Promise.resolve();
    const inOrder = (print: () => unknown) => {
      printed = printed
        .then(() => (signal.aborted ? undefined : print()))
        .then(
          () => undefined,
          () => undefined,
        );
    };
    let finishing = false;
    const inspect = (run: unknown) => {
      if (!isRun(run) || run.id !== runId) return;
      if (typeof run.success === "boolean") {
        if (settling(run, waitStable)) {
          if (succeeded) return;
          succeeded = run;
          inOrder(() => stageLog.sync());
          inOrder(() => progress.settling(String(run.settle?.until)));
        } else if (!finishing) {
          finishing = true;
          inOrder(() => stageLog.sync());
          inOrder(() => end(() => resolve({ kind: "finished", run })));
        }
      } else if (typeof run.step === "string" && run.step) {
        const { step } = run;
        inOrder(() => progress.step(step));
      }
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
            if (!isObject(event)) continue;
            if (event.type === "subscribed") {
              streamUp = true;
              failures = 0;
              // Whatever happened while no stream was open is read from the run and its log.
              pollNow();
              void stageLog.sync();
              if (Array.isArray(event.running)) event.running.forEach(inspect);
            } else if (event.type === "log") {
              if (event.runId === runId) inOrder(() => stageLog.heard(event.stages));
            } else inspect(event.run);
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
        if (answer?.status === 200) {
          // Without a stream, the stages logged since the last read are read here.
          if (!streamUp) void stageLog.sync();
          inspect(answer.json?.run ?? answer.json);
        } else if (answer?.status === 401 || answer?.status === 403)
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
  return { end, stages: stageLog.stages };
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
