import { runTogether } from "./processes.ts";
import { buildFrontendIfMissing, stackgateProcesses } from "./stackgate.ts";

await buildFrontendIfMissing();
runTogether(stackgateProcesses());
