import { ORPCError } from "@orpc/server";
import { actorOf } from "../identity/caller.ts";
import type { Implementer } from "../implementer.ts";
import type { NotifyService } from "./service.ts";

export function notifyProcedures(os: Implementer, { notify }: { notify: NotifyService }) {
  const channels = os.notify.channels;
  return {
    get: os.notify.get.handler(async () => ({ settings: await notify.get() })),
    save: os.notify.save.handler(async ({ context, input }) => ({
      settings: await notify.save(input, actorOf(context.caller)),
    })),
    remove: os.notify.remove.handler(async ({ context }) => ({
      deleted: await notify.remove(actorOf(context.caller)),
    })),
    test: os.notify.test.handler(async ({ input }) => {
      const result = await notify.test(input);
      if (!result) {
        throw new ORPCError("NOT_FOUND", {
          message: "No alert settings are saved; send url and topic to test them",
        });
      }
      return result;
    }),
    channels: {
      list: channels.list.handler(async () => ({ channels: await notify.listChannels() })),
      create: channels.create.handler(async ({ context, input }) => ({
        channel: await notify.createChannel(input, actorOf(context.caller)),
      })),
      get: channels.get.handler(async ({ input }) => ({ channel: await notify.getChannel(input.id) })),
      update: channels.update.handler(async ({ context, input: { id, ...patch } }) => ({
        channel: await notify.updateChannel(id, patch, actorOf(context.caller)),
      })),
      remove: channels.remove.handler(async ({ context, input }) => {
        await notify.removeChannel(input.id, actorOf(context.caller));
        return { deleted: true as const };
      }),
      test: channels.test.handler(({ input }) => notify.testChannel(input.id)),
      deliveries: channels.deliveries.handler(async ({ input }) => ({
        deliveries: await notify.deliveries(input.id),
      })),
    },
  };
}
