import { ORPCError } from "@orpc/server";
import type { Implementer } from "../../implementer.ts";
import type { Clock } from "../../platform/clock.ts";
import { actorOf, type Caller } from "../caller.ts";
import type { ApiKeyService } from "./service.ts";

/** Enough for every pipeline a person runs; bounds what one account can pile up (and list). */
export const MAX_KEYS_PER_USER = 100;

const person = (caller: Caller) => ({ ...actorOf(caller), id: caller.userId });

export function apiKeyProcedures(
  os: Implementer,
  { apiKeys, clock }: { apiKeys: ApiKeyService; clock: Clock },
) {
  return {
    list: os.apikeys.list.handler(async ({ context }) => ({
      keys: await apiKeys.list(context.caller.userId),
    })),
    create: os.apikeys.create.handler(async ({ context, input }) => {
      const expiresAt = input.expiresAt === undefined ? undefined : new Date(input.expiresAt);
      if (expiresAt && expiresAt.getTime() <= clock.now()) {
        throw new ORPCError("BAD_REQUEST", {
          message: `expiresAt must be in the future; ${input.expiresAt} has passed`,
        });
      }
      const created = await apiKeys.create(
        person(context.caller),
        { name: input.name, scope: input.scope, expiresAt },
        { atMost: MAX_KEYS_PER_USER },
      );
      if (!created) {
        throw new ORPCError("CONFLICT", {
          status: 409,
          message: `You already have ${MAX_KEYS_PER_USER} API keys, the most one person may have: delete one you no longer use first`,
        });
      }
      return created;
    }),
    remove: os.apikeys.remove.handler(async ({ context, input }) => {
      if (!(await apiKeys.remove(person(context.caller), input.id))) {
        throw new ORPCError("NOT_FOUND", { message: `No API key with id '${input.id}' belongs to you` });
      }
      return { deleted: true as const };
    }),
  };
}
