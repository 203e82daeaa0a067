import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@stackgate/simulators";
import { describe, expect, it } from "vitest";
import type { SupervisorOptions } from "./processes.ts";

const directory = mkdtempSync(join(tmpdir(), "stackgate-launcher-"));
const child = (name: string, body: string) => {
  const file = join(directory, `${name}.mjs`);
  writeFileSync(file, body);
  return file;
};
const steady = child(
  "steady",
  // The handler first: a SIGTERM between "steady up" and the handler would kill it silently (it did,
  // under a load of 10).
  `process.on("SIGTERM", () => { console.log("steady got SIGTERM"); process.exit(0); }); console.log("steady up pid=" + process.pid); setInterval(() => {}, 1000);`,
);
const dying = child("dying", `console.log("dying up"); setTimeout(() => process.exit(3), 10);`);
const envProbe = child(
  "env-probe",
  `console.log("handed over: " + (process.env.STACKGATE_SUPERVISE ?? "nothing")); setInterval(() => {}, 1000);`,
);
const misconfigured = child(
  "misconfigured",
  `console.error("PORT is taken: set PORT to a free port."); process.exit(78);`,
);

const supervisorFile = join(directory, "supervisor.mjs");

function launch(
  specs: Array<{ name: string; file: string; startWhenAnswering?: string }>,
  options: SupervisorOptions = {},
  how: "runTogether" | "superviseInFreshNode" | "superviseInShell" = "runTogether",
) {
  const specsSource = JSON.stringify(
    specs.map((spec, index) => ({
      name: spec.name,
      args: [spec.file],
      color: 31 + index,
      startWhenAnswering: spec.startWhenAnswering,
    })),
  );
  const call =
    how === "runTogether"
      ? `runTogether(${specsSource}, ${JSON.stringify(options)})`
      : how === "superviseInShell"
        ? `superviseInShell(${specsSource}[0], ${JSON.stringify(options)})`
        : `superviseInFreshNode(${specsSource}, ${JSON.stringify(supervisorFile)}, ${JSON.stringify(options)})`;
  const launcher = child(
    `launcher-${how}-${specs.map((spec) => spec.name).join("-")}`,
    `import { ${how} } from ${JSON.stringify(join(import.meta.dirname, "processes.ts"))};
     ${call};`,
  );
  const process_ = spawn(process.execPath, [launcher], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  process_.stdout.on("data", (chunk) => {
    output += chunk;
  });
  process_.stderr.on("data", (chunk) => {
    output += chunk;
  });
  // "close": the launcher's last lines may still be in the pipe when it exits.
  const exited = new Promise<number | null>((resolve) => process_.on("close", resolve));
  return { process: process_, exited, output: () => output };
}

/** Starting a launcher and its children takes a while on a busy machine. */
const patiently = { timeout: 15_000 };

const pidsOf = (output: string, name: string) =>
  [...output.matchAll(new RegExp(`${name}\\s*\\|.*steady up pid=(\\d+)`, "g"))].map((match) =>
    Number(match[1]),
  );

it("prefixes each line, and restarts a process killed with -9 while the others keep running", async () => {
  const run = launch(
    [
      { name: "calm", file: steady },
      { name: "victim", file: steady },
    ],
    { firstRestartDelayMs: 50 },
  );
  await expect.poll(() => pidsOf(run.output(), "victim"), patiently).toHaveLength(1);
  const [firstPid] = pidsOf(run.output(), "victim");
  process.kill(firstPid!, "SIGKILL");
  await expect.poll(() => pidsOf(run.output(), "victim"), patiently).toHaveLength(2);
  expect(pidsOf(run.output(), "victim")[1]).not.toBe(firstPid);
  expect(run.output()).toContain(
    "victim stopped (killed by SIGKILL); restarting it in 0.05 s (crash 1 in a row).",
  );
  expect(pidsOf(run.output(), "calm")).toHaveLength(1);
  expect(run.output()).not.toContain("got SIGTERM");

  run.process.kill("SIGTERM");
  expect(await run.exited).toBe(0);
  expect((run.output().match(/steady got SIGTERM/g) ?? []).length).toBe(2);
});

it("waits twice as long before each restart while a process keeps crashing", async () => {
  const run = launch(
    [
      { name: "steady", file: steady },
      { name: "dying", file: dying },
    ],
    { firstRestartDelayMs: 20, maxRestartDelayMs: 80 },
  );
  await expect.poll(() => run.output(), patiently).toContain("(crash 4 in a row)");
  expect(run.output()).toContain("dying stopped (exit code 3); restarting it in 0.02 s (crash 1 in a row).");
  expect(run.output()).toContain("restarting it in 0.04 s (crash 2 in a row).");
  expect(run.output()).toContain("restarting it in 0.08 s (crash 3 in a row).");
  expect(run.output()).toContain("restarting it in 0.08 s (crash 4 in a row).");
  expect(run.output()).not.toContain("steady got SIGTERM");
  run.process.kill("SIGINT");
  expect(await run.exited).toBe(0);
  expect(run.output()).toContain("steady got SIGTERM");
});

it("stops the others with a non-zero exit when a process reports a configuration error", async () => {
  const run = launch([
    { name: "steady", file: steady },
    { name: "gateway", file: misconfigured },
  ]);
  expect(await run.exited).toBe(1);
  expect(run.output()).toMatch(/gateway\s*\|.*PORT is taken: set PORT to a free port\./);
  // The launcher exits only once every child has: `steady` was stopped.
  expect(run.output()).toContain("gateway cannot start (see its message above); stopping the others.");
  expect(run.output()).not.toContain("restarting");
});

it("stops everything on Ctrl-C and exits cleanly", async () => {
  const run = launch([
    { name: "one", file: steady },
    { name: "two", file: steady },
  ]);
  await expect.poll(() => (run.output().match(/steady up/g) ?? []).length, patiently).toBe(2);
  run.process.kill("SIGINT");
  expect(await run.exited).toBe(0);
  expect((run.output().match(/steady got SIGTERM/g) ?? []).length).toBe(2);
});

it("supervises from a fresh Node in the launcher's own process, which signals still reach", async () => {
  const run = launch(
    [
      { name: "victim", file: steady },
      { name: "probe", file: envProbe },
    ],
    { firstRestartDelayMs: 50 },
    "superviseInFreshNode",
  );
  await expect.poll(() => pidsOf(run.output(), "victim"), patiently).toHaveLength(1);
  // The launcher's process now runs the supervisor's plain JavaScript, not the TypeScript launcher.
  expect(readFileSync(`/proc/${run.process.pid}/cmdline`, "utf8").split("\0")).toContain(supervisorFile);
  await expect.poll(() => run.output(), patiently).toMatch(/probe\s*\|.*handed over: nothing/);

  process.kill(pidsOf(run.output(), "victim")[0]!, "SIGKILL");
  await expect.poll(() => pidsOf(run.output(), "victim"), patiently).toHaveLength(2);
  expect(run.output()).toContain("restarting it in 0.05 s (crash 1 in a row).");

  run.process.kill("SIGTERM");
  expect(await run.exited).toBe(0);
  expect(run.output()).toContain("steady got SIGTERM");
});

it("starts a process that waits for a URL only once that URL answers", async () => {
  const port = await freePort();
  const server = child(
    "slow-server",
    `import { createServer } from "node:http";
     setTimeout(() => createServer((q, r) => r.end("ok")).listen(${port}, "127.0.0.1", () => console.log("server listening")), 300);
     process.on("SIGTERM", () => process.exit(0));`,
  );
  const run = launch([
    { name: "dependent", file: steady, startWhenAnswering: `http://127.0.0.1:${port}/` },
    { name: "server", file: server },
  ]);
  await expect.poll(() => run.output(), patiently).toContain("steady up");
  const output = run.output();
  expect(output.indexOf("server listening")).toBeGreaterThan(-1);
  expect(output.indexOf("server listening")).toBeLessThan(output.indexOf("steady up"));
  run.process.kill("SIGTERM");
  expect(await run.exited).toBe(0);
});

describe("the one process's supervisor, in the shell", () => {
  /** Its lines are the process's own, without a prefix. */
  const pids = (output: string) =>
    [...output.matchAll(/steady up pid=(\d+)/g)].map((match) => Number(match[1]));
  const rssKiB = (pid: number) =>
    Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);

  it("replaces the launcher with a shell of about a megabyte, restarts the process after kill -9, and passes SIGTERM on", async () => {
    const run = launch(
      [{ name: "stackgate", file: steady }],
      { firstRestartDelayMs: 50 },
      "superviseInShell",
    );
    await expect.poll(() => pids(run.output()), patiently).toHaveLength(1);
    const command = readFileSync(`/proc/${run.process.pid}/cmdline`, "utf8").split("\0");
    expect(command[0]).toBe("/bin/sh");
    expect(command).toContain("stackgate-supervisor");
    expect(rssKiB(run.process.pid!)).toBeLessThan(5 * 1024);

    const [first] = pids(run.output());
    process.kill(first!, "SIGKILL");
    await expect.poll(() => pids(run.output()), patiently).toHaveLength(2);
    expect(run.output()).toContain(
      "stackgate stopped (killed by SIGKILL); restarting it in 0.050 s (crash 1 in a row).",
    );
    expect(run.output()).not.toContain("Killed");

    run.process.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain("steady got SIGTERM");
  });

  it("waits twice as long before each restart while the process keeps crashing", async () => {
    const run = launch(
      [{ name: "dying", file: dying }],
      { firstRestartDelayMs: 20, maxRestartDelayMs: 80 },
      "superviseInShell",
    );
    await expect.poll(() => run.output(), patiently).toContain("(crash 4 in a row)");
    expect(run.output()).toContain(
      "dying stopped (exit code 3); restarting it in 0.020 s (crash 1 in a row).",
    );
    expect(run.output()).toContain("restarting it in 0.040 s (crash 2 in a row).");
    expect(run.output()).toContain("restarting it in 0.080 s (crash 3 in a row).");
    expect(run.output()).toContain("restarting it in 0.080 s (crash 4 in a row).");
    run.process.kill("SIGINT");
    expect(await run.exited).toBe(0);
  });

  it("stops with exit 1, without a restart, when the process reports a configuration error", async () => {
    const run = launch([{ name: "stackgate", file: misconfigured }], {}, "superviseInShell");
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain("PORT is taken: set PORT to a free port.");
    expect(run.output()).toContain("stackgate cannot start (see its message above).");
    expect(run.output()).not.toContain("restarting");
  });

  it("stops the process on Ctrl-C (SIGINT) and exits cleanly", async () => {
    const run = launch([{ name: "stackgate", file: steady }], {}, "superviseInShell");
    await expect.poll(() => pids(run.output()), patiently).toHaveLength(1);
    run.process.kill("SIGINT");
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain("steady got SIGTERM");
  });
});
