import { encodeHistoryCursor } from "@stackgate/contract";
import type { Implementer } from "../implementer.ts";
import type { AuditService } from "./service.ts";

export function auditProcedures(os: Implementer, { audit }: { audit: AuditService }) {
  return {
    list: os.audit.list.handler(async ({ input }) => {
      const page = await audit.list({ limit: input.limit, after: input.cursor });
      return { entries: page.entries, nextCursor: page.next ? encodeHistoryCursor(page.next) : null };
    }),
  };
}
