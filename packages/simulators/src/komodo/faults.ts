/**
 * Faults the simulator can play, set when it starts and changed while it runs
 * (`sim.faults.set(...)`, `sim.faults.setStack(...)`). Unset or `false` means normal behaviour.
 */

/** Faults of the whole server. */
export interface ServerFaults {
  /** Every authenticated call is refused with 401 "Invalid user credentials", as for a wrong or revoked secret. */
  badCredentials?: boolean;
  /** Milliseconds to wait before answering any request. */
  latencyMs?: number;
  /** Milliseconds before an execute's Update completes (0: on the next tick). A stack's own value wins. */
  updateDelayMs?: number;
  /**
   * `/ws/update` refuses the websocket upgrade (426, as Komodo answers a request whose upgrade
   * headers a proxy dropped); sockets already open stay open (`updateStream.drop()` ends them).
   */
  refuseUpdateStream?: boolean;
  /**
   * `/ws/update` refuses the login with Komodo's text while HTTP calls pass, as for a key whose
   * user may call the API but whose stream login Core turns down (a rate limit on its attempts).
   */
  refuseUpdateLogin?: boolean;
  /** The port refuses connections and open sockets are destroyed. */
  down?: boolean;
  /** API calls are answered 200 with a body that is not JSON (an HTML page). */
  garbage?: boolean;
  /**
   * Answers a hostile or broken Komodo gives instead of the real one, by request type
   * (e.g. `{ ListStacks: { json: [{ x: 1 }] } }`). The request is still recorded.
   */
  hostileAnswers?: Partial<Record<string, HostileAnswer>>;
}

/** One answer of a hostile or broken Komodo. */
export type HostileAnswer =
  /** This JSON (status 200 unless given), whatever shape the request expects. */
  | { json: unknown; status?: number }
  /**
   * 200 with a body of `bytes` bytes that starts like a JSON list, streamed without building it in
   * memory, and with back-pressure. Chunked unless `declareLength` sends its Content-Length first.
   */
  | { streamBytes: number; declareLength?: boolean }
  /** 200 with a body that starts like a JSON list and never ends. */
  | { streamForever: true };

/** Faults of one stack. */
export interface StackFaults {
  /** Another action holds the stack: executes reply 200, then their Update fails with "Resource is busy". */
  busy?: boolean;
  /** The API user only has Read: executes reply 200, then fail for lack of Execute permission; writes are refused. */
  forbidden?: boolean;
  /** Deploys and pulls complete with `success: false`; this text is the failed compose stage's stderr. */
  failWith?: string;
  /**
   * The API user has no permission at all on this stack: `ListStacks` leaves it out, the update
   * stream does not carry its Updates, `GetUpdate` of them is refused, executes fail.
   */
  unreadable?: boolean;
  /**
   * This stack's executes stay in progress until the test releases them (`sim.releaseUpdates`),
   * so that it can act (drop the update stream…) while one is running.
   */
  holdUpdates?: boolean;
  /** Milliseconds before this stack's Updates complete, overriding the server's `updateDelayMs`. */
  updateDelayMs?: number;
  /**
   * What the stack's first service does once a deploy of it succeeded, as compose cannot see: it
   * restarts in a loop (exit code 1, every 2 s), exits with code 1 after a second, or runs but
   * fails its health check. The stack's state follows, as Komodo's monitor would report it.
   */
  afterDeploy?: "crash-loop" | "exits" | "unhealthy";
}

/** Applies a patch; keys given as `undefined` are removed. */
export function mergeFaults<T extends object>(current: T, patch: Partial<T>): T {
  const merged: Record<string, unknown> = { ...current, ...patch };
  for (const [key, value] of Object.entries(merged)) {
    if (value === undefined) delete merged[key];
  }
  return merged as T;
}

/**
 * Text a hostile Komodo may put in a failure reason or a name: ANSI colour and cursor escapes, a C1
 * control, a right-to-left override that flips what follows, and padding to `length` characters.
 */
export function hostileText(length = 100_000): string {
  const head = "\u001b[31mERROR\u001b[0m \u001b[2J\u0007\u009b31m deploy of \u202egnp.exe\u202c failed: ";
  return head + "A".repeat(Math.max(0, length - head.length));
}
