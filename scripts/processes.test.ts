import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

const directory = mkdtempSync(join(tmpdir(), "stackgate-launcher-"));
const child = (name: string, body: string) => {
  const file = join(directory, `${name}.mjs`);
  writeFileSync(file, body);
  return file;
};
const steady = child(
  "steady",
  `console.log("steady up"); process.on("SIGTERM", () => { console.log("steady got SIGTERM"); process.exit(0); }); setInterval(() => {}, 1000);`,
);
const dying = child("dying", `console.log("dying up"); setTimeout(() => process.exit(3), 300);`);

function launch(specs: Array<{ name: string; file: string }>) {
  const launcher = child(
    `launcher-${specs.map((spec) => spec.name).join("-")}`,
    `import { runTogether } from ${JSON.stringify(join(import.meta.dirname, "processes.ts"))};
     runTogether(${JSON.stringify(specs.map((spec, index) => ({ name: spec.name, args: [spec.file], color: 31 + index })))});`,
  );
  const process_ = spawn(process.execPath, [launcher], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  process_.stdout.on("data", (chunk) => {
    output += chunk;
  });
  process_.stderr.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => process_.on("exit", resolve));
  return { process: process_, exited, output: () => output };
}

it("prefixes each line, and stops the rest with a non-zero exit when one dies", async () => {
  const run = launch([
    { name: "steady", file: steady },
    { name: "dying", file: dying },
  ]);
  expect(await run.exited).not.toBe(0);
  expect(run.output()).toMatch(/steady\s*\|.*steady up/);
  expect(run.output()).toMatch(/dying\s*\|.*dying up/);
  expect(run.output()).toContain("dying exited (code 3); stopping the others");
  expect(run.output()).toContain("steady got SIGTERM");
});

it("stops everything on Ctrl-C and exits cleanly", async () => {
  const run = launch([
    { name: "one", file: steady },
    { name: "two", file: steady },
  ]);
  await expect.poll(() => (run.output().match(/steady up/g) ?? []).length).toBe(2);
  run.process.kill("SIGINT");
  expect(await run.exited).toBe(0);
  expect((run.output().match(/steady got SIGTERM/g) ?? []).length).toBe(2);
});
