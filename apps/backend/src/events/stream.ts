import type { DeployEvent } from "../deploy/run.ts";
import type { StackVisibility } from "../identity/apikeys/scope.ts";
import { type DeployEventBus, stackOf } from "./bus.ts";

/**
 * One subscriber's view of the bus as an async sequence: `subscribed` first, then every
 * event of the stacks `visible` admits as it happens, until the client goes away (`signal`) or
 * the bus closes.
 */
export async function* followDeployEvents(
  bus: DeployEventBus,
  signal: AbortSignal | undefined,
  visible: StackVisibility,
): AsyncGenerator<DeployEvent> {
  const pending: DeployEvent[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const end = () => {
    ended = true;
    wake?.();
  };
  const { running, unsubscribe } = bus.subscribe((event) => {
    if (event.type !== "subscribed" && !visible.admits(stackOf(event))) return;
    pending.push(event);
    wake?.();
  });
  const stopOnClose = bus.onClose(end);
  signal?.addEventListener("abort", end, { once: true });
  try {
    yield { type: "subscribed", running: running.filter((run) => visible.admits(run.stack)) };
    for (;;) {
      const next = pending.shift();
      if (next) {
        yield next;
        continue;
      }
      // Closing ends the stream only once what was already published has been delivered.
      if (ended) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    unsubscribe();
    stopOnClose();
    signal?.removeEventListener("abort", end);
  }
}
