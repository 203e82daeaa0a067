import { ORPCError } from "@orpc/server";
import type { Implementer } from "../auth/procedures.ts";
import { DeployFailure, type DeployService } from "./service.ts";

const codes = { 502: "BAD_GATEWAY", 503: "SERVICE_UNAVAILABLE", 504: "GATEWAY_TIMEOUT" } as const;

export function deployProcedures(os: Implementer, { deploy }: { deploy: DeployService }) {
  return os.deploy.run.handler(async ({ input, context }) => {
    try {
      return await deploy.run({ ...input, caller: context.caller });
    } catch (error) {
      if (!(error instanceof DeployFailure)) throw error;
      throw new ORPCError(codes[error.status], {
        status: error.status,
        message: error.message,
        data: { success: false, stack: input.stack, action: input.action },
      });
    }
  });
}
