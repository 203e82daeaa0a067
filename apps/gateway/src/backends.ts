import { request } from "node:http";

/** The backend's readiness: 200 while it takes requests, 503 from the moment it starts stopping. */
export const READINESS_PATH = "/health/ready";

export interface Target {
  /** As configured, for messages. */
  readonly url: string;
  readonly hostname: string;
  readonly port: number;
  /** False while its readiness answers anything but 200, or since a connection to it was refused. */
  healthy: boolean;
  /** Why it is not healthy. */
  reason: string | undefined;
  /** Ordinary requests on their way to it or being answered by it. */
  requests: number;
  /** Event streams open on it. */
  streams: number;
}

/**
 * Asks `path` of `url` for a 200, on a connection of its own (the probe proves that a new one can be
 * made); resolves with why not, or undefined.
 */
export function probe(url: string, path: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const asking = request(new URL(path, url), { agent: false, timeout: timeoutMs }, (answer) => {
      answer.resume();
      answer.on("end", () =>
        resolve(answer.statusCode === 200 ? undefined : `it answered ${answer.statusCode}`),
      );
    });
    asking.on("timeout", () => asking.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    asking.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    asking.end();
  });
}

export function targetOf(url: string): Target {
  const parsed = new URL(url);
  return {
    url,
    // `[::1]` in a URL, `::1` for a connection.
    hostname: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80)),
    healthy: true,
    reason: undefined,
    requests: 0,
    streams: 0,
  };
}

/**
 * The backends the gateway spreads requests over. With more than one, each one's readiness is asked
 * every `intervalMs`; a backend that answers anything but 200 (a stopping backend answers 503) or
 * does not answer gets no new requests until it answers 200 again. With one, nothing is asked:
 * there is nowhere else to send a request.
 */
export function createBackendPool(
  urls: string[],
  { intervalMs = 1000, timeoutMs = 1000 }: { intervalMs?: number; timeoutMs?: number } = {},
) {
  const targets = urls.map(targetOf);
  let turn = 0;
  let timer: NodeJS.Timeout | undefined;
  let checking = false;

  async function check() {
    if (checking) return;
    checking = true;
    await Promise.all(
      targets.map(async (target) => {
        const reason = await probe(target.url, READINESS_PATH, timeoutMs);
        target.healthy = reason === undefined;
        target.reason = reason;
      }),
    );
    checking = false;
  }

  return {
    targets,
    /** Resolves after the first round of checks. */
    start(): Promise<void> {
      if (targets.length < 2 || timer) return Promise.resolve();
      timer = setInterval(() => void check(), intervalMs).unref();
      return check();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
    /**
     * The next target for a request (`kind` "requests") or an event stream (`kind` "streams"),
     * leaving out those already tried: the healthy one with the fewest of that kind open, in turn
     * among equals. When none is healthy, all are tried anyway: a check may be behind.
     */
    choose(kind: "requests" | "streams", tried: ReadonlySet<Target> = new Set()): Target | undefined {
      let best: Target | undefined;
      let bestIndex = 0;
      for (const healthyOnly of [true, false]) {
        for (let step = 0; step < targets.length; step++) {
          const index = (turn + step) % targets.length;
          const target = targets[index]!;
          if (tried.has(target) || (healthyOnly && !target.healthy)) continue;
          if (best === undefined || target[kind] < best[kind]) {
            best = target;
            bestIndex = index;
          }
        }
        if (best) break;
      }
      if (best) turn = (bestIndex + 1) % targets.length;
      return best;
    },
    /** A connection to `target` could not be made: no new requests until its next check says ready. */
    unreachable(target: Target, reason: string) {
      if (targets.length < 2) return;
      target.healthy = false;
      target.reason = reason;
    },
  };
}

export type BackendPool = ReturnType<typeof createBackendPool>;
