import type { ConnectionService } from "../connection/service.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/logger.ts";
import { type RunningService, runningServices } from "../upstream/running-services.ts";

export type SettleVerdict =
  | { state: "stable"; reason: null }
  | { state: "unstable"; reason: string }
  /** Komodo could not be read when the window ended (nor for a few reads after): not judged. */
  | { state: "skipped"; reason: string };

/** Reads after a window's end that may still fail before it ends without a verdict. */
const READS_AFTER_THE_END = 3;

export interface SettleWindow {
  stack: string;
  /** What ran before the deploy (to tell the deploy's containers from older ones), if known. */
  before: RunningService[] | null;
  /** When the deploy started (ms): without `before`, a container created earlier is not the deploy's. */
  startedAt: number;
  /** When the window ends (ms). */
  until: number;
  /** What each read saw of the deploy's own containers (what runs now, for the run's digests). */
  onRead?: (services: RunningService[]) => void;
  onEnd: (verdict: SettleVerdict) => void;
}

/** Containers' clocks and ours may differ by this much, where no earlier container tells them apart. */
const CLOCK_SLACK_MS = 120_000;

/** docker's status of an exited container: "Exited (137) 5 seconds ago". */
const exitCodeOf = (status: string | null) =>
  Number(/^Exited \((-?\d+)\)/.exec(status ?? "")?.[1] ?? Number.NaN);

/**
 * Watches what a deploy brought up for a while after it succeeded: one read of the stack's services
 * (`ListStackServices`) every `everyMs` serves every window open on that stack. A service of the
 * deploy that restarts, exits with an error, dies or fails its health check makes the window end
 * `unstable` at once, with the reason; one whose container Komodo never showed makes it unstable at
 * its end; otherwise it ends `stable`. Komodo's monitor may lag a deploy: until a service's
 * container is the deploy's (recreated since), it is not judged.
 */
export function createSettleWatch({
  connection,
  clock,
  logger,
  everyMs,
}: {
  connection: ConnectionService;
  clock: Clock;
  logger: Logger;
  everyMs: number;
}) {
  const stacks = new Map<string, { windows: Set<SettleWindow>; timer: NodeJS.Timeout; reading: boolean }>();
  let reads = 0;

  const isTheDeploys = (window: SettleWindow, service: RunningService) => {
    if (service.createdAt === null) return false;
    const earlier = window.before?.find((each) => each.service === service.service);
    if (!window.before) return service.createdAt >= window.startedAt - CLOCK_SLACK_MS;
    if (!earlier) return true;
    // Docker's `created` is in seconds: a deploy within a second of the last has the same.
    if (earlier.containerId && service.containerId) return earlier.containerId !== service.containerId;
    return earlier.createdAt !== service.createdAt;
  };

  async function problemsOf(stack: string, services: RunningService[]): Promise<string[]> {
    const problems: string[] = [];
    for (const { service, state, status } of services) {
      if (state === "restarting") problems.push(await restartsOf(stack, service));
      else if (state === "dead") problems.push(`${service} is dead`);
      else if (state === "exited" && exitCodeOf(status) !== 0)
        problems.push(`${service} exited (${exitCodeOf(status)})`);
      else if (status?.includes("(unhealthy)")) problems.push(`${service} unhealthy`);
    }
    return problems;
  }

  /** How often it restarted: docker's count, read once the window is decided (a read more, once). */
  async function restartsOf(stack: string, service: string): Promise<string> {
    try {
      const inspected = await connection.requireClient().inspectStackContainer(stack, service);
      const count = inspected.RestartCount;
      if (typeof count === "number" && count > 0)
        return `${service} restarted ${count} time${count === 1 ? "" : "s"}`;
    } catch (error) {
      logger.debug({ err: error, stack, service }, "the restart count could not be read");
    }
    return `${service} is restarting`;
  }

  function end(stack: string, window: SettleWindow, verdict: SettleVerdict) {
    const entry = stacks.get(stack);
    if (!entry?.windows.delete(window)) return;
    if (entry.windows.size === 0) {
      clearInterval(entry.timer);
      stacks.delete(stack);
    }
    window.onEnd(verdict);
  }

  async function read(stack: string) {
    const entry = stacks.get(stack);
    if (!entry || entry.reading) return;
    entry.reading = true;
    let services: RunningService[] | null = null;
    let failure = "";
    try {
      reads += 1;
      services = runningServices(await connection.requireClient().listStackServices(stack));
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
      logger.warn({ err: error, stack }, "a deploy's services could not be read while watching them");
    } finally {
      entry.reading = false;
    }
    const now = clock.now();
    for (const window of [...entry.windows]) {
      const own = services?.filter((service) => isTheDeploys(window, service)) ?? [];
      if (own.length > 0) window.onRead?.(own);
      const problems = await problemsOf(stack, own);
      if (problems.length > 0) {
        end(stack, window, { state: "unstable", reason: problems.join("; ") });
        continue;
      }
      if (now < window.until) continue;
      if (!services) {
        if (now >= window.until + READS_AFTER_THE_END * everyMs)
          end(stack, window, {
            state: "skipped",
            reason: `Komodo could not be read to watch the services: ${failure}`,
          });
        continue;
      }
      const unseen = services.filter((service) => !own.some((each) => each.service === service.service));
      if (unseen.length > 0) {
        const names = unseen.map((service) => service.service).join(", ");
        end(stack, window, {
          state: "unstable",
          reason: `Komodo showed no container of ${names} since the deploy`,
        });
      } else end(stack, window, { state: "stable", reason: null });
    }
  }

  return {
    /** Opens a window; returns the function that closes it without a verdict. */
    watch(window: SettleWindow): () => void {
      let entry = stacks.get(window.stack);
      if (!entry) {
        const timer = setInterval(() => void read(window.stack), everyMs);
        timer.unref();
        entry = { windows: new Set(), timer, reading: false };
        stacks.set(window.stack, entry);
      }
      entry.windows.add(window);
      return () => {
        const current = stacks.get(window.stack);
        if (!current?.windows.delete(window) || current.windows.size > 0) return;
        clearInterval(current.timer);
        stacks.delete(window.stack);
      };
    },
    /** How many reads the watch has made, for the benchmark. */
    reads: () => reads,
    /** Windows open now, by stack, for tests. */
    open: () => [...stacks].map(([stack, entry]) => ({ stack, windows: entry.windows.size })),
    close() {
      for (const { timer } of stacks.values()) clearInterval(timer);
      stacks.clear();
    },
  };
}

export type SettleWatch = ReturnType<typeof createSettleWatch>;
