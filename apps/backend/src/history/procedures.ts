import { type Implementer, visibleStackPatterns } from "../implementer.ts";
import type { HistoryService } from "./service.ts";

export function historyProcedures(os: Implementer, { history }: { history: HistoryService }) {
  return {
    list: os.history.list.handler(({ context }) => ({
      history: history.list(visibleStackPatterns(context.caller)),
    })),
    overview: os.history.overview.handler(({ context }) =>
      history.overview(visibleStackPatterns(context.caller)),
    ),
  };
}
