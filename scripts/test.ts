// `npm test`: the package's `typecheck` and `lint` run beside `test:unit` (the unit and PostgreSQL
// tests leave about a third of two cores idle: their files wait on timers, sockets and child
// processes); then `test:browser`, which keeps both cores busy, once everything before it passed. A
// failed script fails the run, named at its end.
import { runSideBySide } from "./processes.ts";

const npm = process.env.npm_execpath;
const script = (name: string) => ({
  name,
  // Under npm, its own CLI on this Node; run by hand, the npm on the PATH.
  command: npm ? process.execPath : "npm",
  args: [...(npm ? [npm] : []), "run", name],
});

const failed = await runSideBySide([script("typecheck"), script("lint"), script("test:unit")]);
if (failed.length === 0) failed.push(...(await runSideBySide([script("test:browser")])));

if (failed.length > 0) {
  console.error(`\nnpm test failed: ${failed.join(", ")}.`);
  process.exit(1);
}
