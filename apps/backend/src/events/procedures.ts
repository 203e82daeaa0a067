import type { AccessWatch } from "../identity/access-watch.ts";
import type { Implementer } from "../implementer.ts";
import type { DeployEventBus } from "./bus.ts";
import { followDeployEvents } from "./stream.ts";

export function eventProcedures(
  os: Implementer,
  { events, access }: { events: DeployEventBus; access: AccessWatch },
) {
  return os.deploy.events.handler(async function* ({ signal, context }) {
    // The stream ends with the caller's access (a disabled person, a revoked key), as their next request would.
    const lost = new AbortController();
    const unwatch = access.watch(context.caller, () => lost.abort());
    try {
      const ended = signal ? AbortSignal.any([signal, lost.signal]) : lost.signal;
      yield* followDeployEvents(events, ended, context.caller.runs);
    } finally {
      unwatch();
    }
  });
}
