import { enableCompileCache } from "node:module";
import { join } from "node:path";

// V8's code cache on disk for the launcher too, enabled before its modules load (hence the dynamic
// imports): their type stripping and compilation are read back from the cache on the next start.
enableCompileCache(process.env.NODE_COMPILE_CACHE || join(import.meta.dirname, "../dist/compile-cache"));
const { superviseInFreshNode, superviseInShell } = await import("./processes.ts");
const { buildWhatIsMissing, layoutOf, root, stackgateProcesses } = await import("./stackgate.ts");

// STACKGATE_PROCESSES=one (the default): the whole service in one process, under a shell's few
// hundred kilobytes of supervision; split: gateway, backend and dashboard, under a Node supervisor
// that prefixes their lines with their names.
const layout = layoutOf();
await buildWhatIsMissing();
const specs = stackgateProcesses(process.env, layout);
if (layout === "one") superviseInShell(specs[0]!);
else superviseInFreshNode(specs, join(root, "dist/supervisor.mjs"));
