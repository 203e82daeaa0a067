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
  /** The port refuses connections and open sockets are destroyed. */
  down?: boolean;
  /** API calls are answered 200 with a body that is not JSON (an HTML page). */
  garbage?: boolean;
}

/** Faults of one stack. */
export interface StackFaults {
  /** Another action holds the stack: executes reply 200, then their Update fails with "Resource is busy". */
  busy?: boolean;
  /** The API user only has Read: executes reply 200, then fail for lack of Execute permission; writes are refused. */
  forbidden?: boolean;
  /** Deploys and pulls complete with `success: false`; this text is the failed compose stage's stderr. */
  failWith?: string;
  /** Milliseconds before this stack's Updates complete, overriding the server's `updateDelayMs`. */
  updateDelayMs?: number;
}

/** Applies a patch; keys given as `undefined` are removed. */
export function mergeFaults<T extends object>(current: T, patch: Partial<T>): T {
  const merged: Record<string, unknown> = { ...current, ...patch };
  for (const [key, value] of Object.entries(merged)) {
    if (value === undefined) delete merged[key];
  }
  return merged as T;
}
