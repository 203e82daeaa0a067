import { actorOf } from "../identity/caller.ts";
import type { Implementer } from "../implementer.ts";
import { deadlineIn } from "../platform/deadline.ts";
import type { StackService } from "./service.ts";

export function stackProcedures(
  os: Implementer,
  { stacks, deployTimeoutMs }: { stacks: StackService; deployTimeoutMs: number },
) {
  return {
    list: os.stacks.list.handler(async ({ context }) => ({
      stacks: await stacks.list(context.caller.stacks),
    })),
    services: os.stacks.services.handler(async ({ input, context }) => ({
      stack: input.stack,
      services: await stacks.servicesNow(input.stack, context.caller.stacks),
    })),
    remove: os.stacks.remove.handler(async ({ context, input }) => {
      await stacks.remove(
        input.stack,
        context.caller.stacks,
        deadlineIn(deployTimeoutMs),
        actorOf(context.caller),
      );
      return { deleted: true as const, stack: input.stack };
    }),
    getPollForUpdates: os.stacks.getPollForUpdates.handler(async ({ input, context }) => ({
      stack: input.stack,
      enabled: await stacks.pollForUpdates(input.stack, context.caller.stacks),
    })),
    setPollForUpdates: os.stacks.setPollForUpdates.handler(async ({ context, input }) => {
      await stacks.setPollForUpdates(
        input.stack,
        context.caller.stacks,
        input.enabled,
        actorOf(context.caller),
      );
      return { stack: input.stack, enabled: input.enabled };
    }),
  };
}
