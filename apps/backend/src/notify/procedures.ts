import { ORPCError } from "@orpc/server";
import type { Implementer } from "../implementer.ts";
import type { NotifyService } from "./service.ts";

export function notifyProcedures(os: Implementer, { notify }: { notify: NotifyService }) {
  return {
    get: os.notify.get.handler(() => ({ settings: notify.get() })),
    save: os.notify.save.handler(({ input }) => ({ settings: notify.save(input) })),
    remove: os.notify.remove.handler(() => ({ deleted: notify.remove() })),
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
