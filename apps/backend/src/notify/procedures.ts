import { ORPCError } from "@orpc/server";
import { actorOf } from "../identity/caller.ts";
import type { Implementer } from "../implementer.ts";
import type { NotifyService } from "./service.ts";

export function notifyProcedures(os: Implementer, { notify }: { notify: NotifyService }) {
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
  };
}
