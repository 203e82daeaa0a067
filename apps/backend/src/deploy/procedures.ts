import type { Implementer } from "../implementer.ts";
import type { DeployService } from "./service.ts";

export function deployProcedures(os: Implementer, { deploy }: { deploy: DeployService }) {
  return os.deploy.run.handler(({ input, context }) => deploy.run({ ...input, caller: context.caller }));
}
