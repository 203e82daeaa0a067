// The backend's, the packages' and the dashboard's TypeScript checked at once: tsc is single-threaded,
// so the two projects side by side take the longer one's time instead of their sum.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { root } from "./stackgate.ts";

const projects = ["tsconfig.json", "apps/frontend/tsconfig.json"];
const tsc = join(root, "node_modules/typescript/bin/tsc");

const codes = await Promise.all(
  projects.map(
    (project) =>
      new Promise<number>((resolve) => {
        const child = spawn(process.execPath, [tsc, "-p", join(root, project), "--noEmit"], {
          stdio: "inherit",
        });
        child.on("error", (error) => {
          console.error(`tsc could not start for ${project}: ${error.message}`);
          resolve(1);
        });
        child.on("exit", (code, signal) => resolve(signal ? 1 : (code ?? 1)));
      }),
  ),
);
const failed = projects.filter((_, index) => codes[index] !== 0);
if (failed.length > 0) {
  console.error(`TypeScript found errors in ${failed.join(" and ")}`);
  process.exit(1);
}
