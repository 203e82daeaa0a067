import { encodeHistoryCursor } from "@stackgate/contract";
import type { Implementer } from "../implementer.ts";
import type { HistoryService } from "./service.ts";

export function historyProcedures(os: Implementer, { history }: { history: HistoryService }) {
  return {
    list: os.history.list.handler(async ({ input = {}, context }) => {
      const { cursor, ...query } = input;
      const page = await history.list({ ...query, after: cursor }, context.caller.stacks);
      return { history: page.entries, nextCursor: page.next && encodeHistoryCursor(page.next) };
    }),
    overview: os.history.overview.handler(({ context }) => history.overview(context.caller.stacks)),
  };
}
