import { ORPCError } from "@orpc/server";
import type { Implementer } from "../implementer.ts";
import type { ConnectionService } from "./service.ts";

export function connectionProcedures(os: Implementer, { connection }: { connection: ConnectionService }) {
  return {
    get: os.connection.get.handler(() => {
      const updateStream = connection.updateStream();
      return { connection: connection.get(), ...(updateStream ? { updateStream } : {}) };
    }),
    save: os.connection.save.handler(({ input }) => connection.save(input)),
    remove: os.connection.remove.handler(({ input }) => {
      if (!connection.remove(input.name)) {
        throw new ORPCError("NOT_FOUND", { message: `No Komodo connection named '${input.name}'` });
      }
      return { deleted: true as const };
    }),
  };
}
