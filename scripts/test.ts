// `npm test`: the type check and the lint run beside the unit and PostgreSQL tests, which leave about
// a third of two cores idle (their files wait on timers, sockets and child processes); then the
// browser tests, which keep both cores busy. A failed step fails the run, named at its end; the
// browser tests run only when everything before them passed.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { root } from "./stackgate.ts";

interface Step {
  name: string;
  command: string;
  args: string[];
}

const node = (name: string, script: string): Step => ({
  name,
  command: process.execPath,
  args: [join(root, script)],
});

function run({ name, command, args }: Step): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit", cwd: root });
    child.on("error", (error) => {
      console.error(`${name} could not start: ${error.message}`);
      resolve(false);
    });
    child.on("exit", (code) => resolve(code === 0));
  });
}

async function runAll(steps: Step[]) {
  const passed = await Promise.all(steps.map(run));
  return steps.filter((_, index) => !passed[index]).map((step) => step.name);
}

const biome = join(root, "node_modules/@biomejs/biome/bin/biome");
const failed = await runAll([
  node("The type check", "scripts/typecheck.ts"),
  { name: "The lint", command: process.execPath, args: [biome, "check", "--error-on-warnings", "."] },
  node("The unit and PostgreSQL tests", "scripts/unit-tests.ts"),
]);
if (failed.length === 0)
  failed.push(...(await runAll([node("The browser tests", "scripts/browser-tests.ts")])));

if (failed.length > 0) {
  console.error(`\nnpm test failed: ${failed.join(", ")}.`);
  process.exit(1);
}
