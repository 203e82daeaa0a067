import { ORPCError } from "@orpc/server";
import type { Implementer } from "../auth/procedures.ts";
import { type ConnectionService, CredentialsInUrlError, CredentialsRejectedError } from "./service.ts";

export function connectionProcedures(os: Implementer, { connection }: { connection: ConnectionService }) {
  return {
    get: os.connection.get.handler(() => {
      const updateStream = connection.updateStream();
      return { connection: connection.get(), ...(updateStream ? { updateStream } : {}) };
    }),
    save: os.connection.save.handler(async ({ input }) => {
      try {
        return await connection.save(input);
      } catch (error) {
        if (error instanceof CredentialsInUrlError)
          throw new ORPCError("BAD_REQUEST", { message: error.message });
        if (error instanceof CredentialsRejectedError) {
          throw new ORPCError("UNPROCESSABLE_CONTENT", { status: 422, message: error.message });
        }
        throw error;
      }
    }),
    remove: os.connection.remove.handler(({ input }) => {
      if (!connection.remove(input.name)) {
        throw new ORPCError("NOT_FOUND", { message: `No Komodo connection named '${input.name}'` });
      }
      return { deleted: true as const };
    }),
  };
}
