import { join } from "node:path";
import { superviseInFreshNode } from "./processes.ts";
import { buildWhatIsMissing, root, stackgateProcesses } from "./stackgate.ts";

await buildWhatIsMissing();
superviseInFreshNode(stackgateProcesses(), join(root, "dist/supervisor.mjs"));
