import type { Implementer } from "../implementer.ts";
import type { DeployEventBus } from "./bus.ts";
import { followDeployEvents } from "./stream.ts";

export function eventProcedures(os: Implementer, { events }: { events: DeployEventBus }) {
  return os.deploy.events.handler(({ signal, context }) =>
    followDeployEvents(events, signal, context.caller.stacks),
  );
}
