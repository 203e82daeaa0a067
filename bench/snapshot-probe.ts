/**
 * Issue 34's start-up targets (restart ≤ 300 ms, first start ≤ 400 ms) would need most of the module
 * evaluation gone, and a V8 start-up snapshot (`node --build-snapshot`) is the known way to skip it.
 * This probe asks whether this Node can build one for what Stackgate loads:
 *  1. it starts the one process as `npm start` does (its build, flags and environment; a throw-away
 *     `DATA_DIR`) and lists Node's built-in modules loaded when its port opens (read from
 *     `process.moduleLoadList` by a preload that wraps `net.Server#listen`, so `node:net` is in the
 *     list whatever the service loads), and whether undici (the global `fetch`, `Request`, `Headers`)
 *     is among them;
 *  2. for each of them, it builds a snapshot of a one-line script that loads it, and prints whether
 *     Node builds it, warns, or aborts.
 * A snapshot of the service needs every one of them to build. Rerun it on a newer Node: it prints
 * what changed. Usage: `npx node bench/snapshot-probe.ts`.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { buildWhatIsMissing, stackgateProcesses } from "../scripts/stackgate.ts";
import { freePort, loadAverage, machine, temporaryDirectory } from "./lib.ts";

const workDir = temporaryDirectory("stackgate-snapshot-probe-");
const reportPath = join(workDir, "loaded.json");
const preloadPath = join(workDir, "report-when-listening.cjs");
writeFileSync(
  preloadPath,
  `const net = require("node:net");
const { writeFileSync } = require("node:fs");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once("listening", () => {
    writeFileSync(${JSON.stringify(reportPath)}, JSON.stringify(process.moduleLoadList));
    process.exit(0);
  });
  return listen.apply(this, args);
};
`,
);

await buildWhatIsMissing();
const port = String(await freePort());
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PORT: port,
  DATA_DIR: join(workDir, "data"),
  SEED_ADMIN_PASSWORD: "snapshot-probe-password",
  LOG_LEVEL: "warn",
};
const [service] = stackgateProcesses(env, "one");
const started = spawn(process.execPath, ["--require", preloadPath, ...service!.args], {
  env: { ...env, ...service!.env },
  stdio: ["ignore", "inherit", "inherit"],
});
const exitCode = await new Promise<number | null>((resolve) => started.once("exit", resolve));
if (exitCode !== 0) throw new Error(`the one process exited with ${exitCode} before its port opened`);

const loadList = JSON.parse(readFileSync(reportPath, "utf8")) as string[];
const loadedInternals = new Set(
  loadList.filter((entry) => entry.startsWith("NativeModule ")).map((entry) => entry.slice(13)),
);
const publicBuiltins = new Set(builtinModules);
const loaded = [...loadedInternals].filter((name) => publicBuiltins.has(name)).sort();
const undiciLoaded = loadedInternals.has("internal/deps/undici/undici");

/** Builds a snapshot of `source` and says how it went: built, built with warnings, or the abort's reason. */
function trySnapshot(source: string): string {
  const script = join(workDir, "entry.cjs");
  const blob = join(workDir, "snapshot.blob");
  writeFileSync(script, source);
  const run = spawnSync(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  rmSync(blob, { force: true });
  const failure = /(Check\w+ failed|Error: [^\n]+)/.exec(run.stderr)?.[1];
  if (run.status !== 0) return `ABORTS (${failure ?? run.signal ?? `exit ${run.status}`})`;
  return /not yet fully verified/.test(run.stderr)
    ? "builds, with Node's warning: not yet verified"
    : "builds";
}

const probes: [string, string][] = [
  ...loaded.map((name): [string, string] => [`node:${name}`, `require("node:${name}");`]),
  ...(undiciLoaded ? [["undici (global Request)", "globalThis.Request;"] as [string, string]] : []),
];
const outcomes = probes.map(([name, source]) => [name, trySnapshot(source)] as const);
rmSync(workDir, { recursive: true, force: true });

console.log(`\n${machine()}, ${loadAverage()}`);
console.log(
  `Node's built-in modules loaded when the one process's port opens: ${loaded.length}; undici ${undiciLoaded ? "loaded" : "not loaded"}.`,
);
console.log("A snapshot of a script that loads each one:");
for (const [name, outcome] of outcomes) console.log(`  ${name.padEnd(28)} ${outcome}`);
const aborting = outcomes.filter(([, outcome]) => outcome.startsWith("ABORTS"));
console.log(
  aborting.length === 0
    ? "\nEvery one builds: a snapshot of the service is worth trying on this Node."
    : `\n${aborting.length} of them abort the snapshot builder (${aborting.map(([name]) => name).join(", ")}): the service cannot be snapshotted as it loads today on ${process.version}.`,
);
