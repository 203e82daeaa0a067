import type { Actor, AuditService } from "../audit/service.ts";
import type { ConnectionService } from "../connection/service.ts";
import type { HistoryService } from "../history/service.ts";
import { requireVisible, type StackVisibility } from "../identity/apikeys/scope.ts";
import type { Deadline } from "../platform/deadline.ts";
import type { StackLanes } from "../platform/stack-lanes.ts";
import type { KomodoStackListItem } from "../upstream/komodo-client.ts";
import { runningServices } from "../upstream/running-services.ts";

export function toStack(item: KomodoStackListItem) {
  const services = item.info.services.map(({ service, image, update_available }) => ({
    service,
    image,
    update_available,
  }));
  return {
    id: item.id,
    name: item.name,
    state: item.info.state,
    status: item.info.status ?? null,
    info: { services },
    images: [...new Set(services.map((service) => service.image).filter(Boolean))],
  };
}

export type Stack = ReturnType<typeof toStack>;

/** Stacks are read from Komodo on every call: never cached, never stored. */
export function createStackService({
  connection,
  lanes,
  audit,
  history,
}: {
  connection: ConnectionService;
  lanes: StackLanes;
  audit: AuditService;
  /** Which deploy brought what each service runs. */
  history: Pick<HistoryService, "broughtBy">;
}) {
  return {
    /** The stacks `visible` admits: every stack (EVERY_STACK), or a scoped API key's. */
    async list(visible: StackVisibility): Promise<Stack[]> {
      const items = await connection.requireClient().listAllStacks();
      return (visible.patterns ? items.filter((item) => visible.admits(item.name)) : items).map(toStack);
    },

    /** Takes a running stack down first, then deletes it in Komodo; waits for the stack's deploys, as they wait for it. */
    async remove(stack: string, visible: StackVisibility, deadline: Deadline, by: Actor) {
      requireVisible(visible, stack);
      return lanes.run(stack, async () => {
        const client = connection.requireClient();
        const current = await client.findStack(stack);
        if (current && current.info.state !== "down" && current.info.state !== "unknown") {
          const update = await client.execute("DestroyStack", { stack });
          await client.waitForUpdate(update, { deadline });
        }
        await client.deleteStack(stack);
        await audit.recordChange({ by, action: "stack.deleted", target: stack });
      });
    },

    /**
     * What each service runs now (live from Komodo: image, digest, container) and since when:
     * the deploy recorded here that brought that digest, if one did.
     */
    async servicesNow(stack: string, visible: StackVisibility) {
      requireVisible(visible, stack);
      const services = runningServices(await connection.requireClient().listStackServices(stack));
      const brought = await history.broughtBy(stack, services);
      return services.map(({ service, image, digest, state, status }) => ({
        service,
        image,
        digest,
        state,
        status,
        since: brought.get(service)?.since ?? null,
        runId: brought.get(service)?.runId ?? null,
      }));
    },

    /** Komodo's setting as it is now (a stack never configured has it off). */
    async pollForUpdates(stack: string, visible: StackVisibility): Promise<boolean> {
      requireVisible(visible, stack);
      const found = await connection.requireClient().getStack(stack);
      return found.config?.poll_for_updates ?? false;
    },

    async setPollForUpdates(stack: string, visible: StackVisibility, enabled: boolean, by: Actor) {
      requireVisible(visible, stack);
      await connection.requireClient().updateStack(stack, { poll_for_updates: enabled });
      await audit.recordChange({
        by,
        action: "stack.poll-for-updates-set",
        target: stack,
        detail: { enabled },
      });
    },
  };
}

export type StackService = ReturnType<typeof createStackService>;
