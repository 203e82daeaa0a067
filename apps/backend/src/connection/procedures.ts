import { ORPCError } from "@orpc/server";
import { actorOf } from "../identity/caller.ts";
import type { Implementer } from "../implementer.ts";
import type { ConnectionService } from "./service.ts";

export function connectionProcedures(os: Implementer, { connection }: { connection: ConnectionService }) {
  return {
    get: os.connection.get.handler(async () => {
      const updateStream = connection.updateStream();
      return { connection: await connection.get(), ...(updateStream ? { updateStream } : {}) };
    }),
    save: os.connection.save.handler(({ context, input }) => connection.save(input, actorOf(context.caller))),
    remove: os.connection.remove.handler(async ({ context, input }) => {
      if (!(await connection.remove(input.name, actorOf(context.caller)))) {
        throw new ORPCError("NOT_FOUND", { message: `No Komodo connection named '${input.name}'` });
      }
      return { deleted: true as const };
    }),
  };
}
