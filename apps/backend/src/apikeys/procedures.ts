import { ORPCError } from "@orpc/server";
import type { Implementer } from "../auth/procedures.ts";
import type { ApiKeyService } from "./service.ts";

export function apiKeyProcedures(os: Implementer, { apiKeys }: { apiKeys: ApiKeyService }) {
  return {
    list: os.apikeys.list.handler(({ context }) => ({ keys: apiKeys.list(context.caller.userId) })),
    create: os.apikeys.create.handler(({ context, input }) =>
      apiKeys.create(context.caller.userId, input.name),
    ),
    remove: os.apikeys.remove.handler(({ context, input }) => {
      if (!apiKeys.remove(context.caller.userId, input.id)) {
        throw new ORPCError("NOT_FOUND", { message: `No API key with id '${input.id}' belongs to you` });
      }
      return { deleted: true as const };
    }),
  };
}
