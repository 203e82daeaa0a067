import { enableCompileCache } from "node:module";
import { join } from "node:path";

// V8's code cache on disk for the launcher too, enabled before its modules load (hence the dynamic
// imports): their type stripping and compilation are read back from the cache on the next start.
enableCompileCache(process.env.NODE_COMPILE_CACHE || join(import.meta.dirname, "../dist/compile-cache"));
const { superviseInFreshNode } = await import("./processes.ts");
const { buildWhatIsMissing, root, stackgateProcesses } = await import("./stackgate.ts");

await buildWhatIsMissing();
superviseInFreshNode(stackgateProcesses(), join(root, "dist/supervisor.mjs"));
