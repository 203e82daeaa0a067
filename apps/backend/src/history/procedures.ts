import type { Implementer } from "../auth/procedures.ts";
import type { HistoryService } from "./service.ts";

export function historyProcedures(os: Implementer, { history }: { history: HistoryService }) {
  return {
    list: os.history.list.handler(() => ({ history: history.list() })),
    overview: os.history.overview.handler(() => history.overview()),
  };
}
