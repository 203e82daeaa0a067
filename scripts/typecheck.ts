// The backend's, the packages' and the dashboard's TypeScript checked at once: tsc is single-threaded,
// so the two projects side by side take the longer one's time instead of their sum.
import { join } from "node:path";
import { runSideBySide } from "./processes.ts";
import { root } from "./stackgate.ts";

const tsc = join(root, "node_modules/typescript/bin/tsc");
const failed = await runSideBySide(
  ["tsconfig.json", "apps/frontend/tsconfig.json"].map((project) => ({
    name: project,
    command: process.execPath,
    args: [tsc, "-p", join(root, project), "--noEmit"],
  })),
);
if (failed.length > 0) {
  console.error(`TypeScript found errors in ${failed.join(" and ")}`);
  process.exit(1);
}
