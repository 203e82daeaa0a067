/**
 * A Komodo simulator for local runs and demos:
 *   npx node packages/simulators/src/komodo/cli.ts [--port 9120] [--stacks 40 | --demo]
 *     [--key K_..._K] [--secret S_..._S] [--update-delay-ms 1500] [--host 127.0.0.1]
 * Without --stacks it serves the demo stacks.
 */
import { parseArgs } from "node:util";
import { demoStacks } from "./seeds.ts";
import { startKomodoSimulator } from "./simulator.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "9120" },
    host: { type: "string", default: "127.0.0.1" },
    stacks: { type: "string" },
    demo: { type: "boolean", default: false },
    key: { type: "string" },
    secret: { type: "string" },
    "update-delay-ms": { type: "string", default: "1500" },
  },
});

function count(name: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    console.error(`--${name} must be a whole number, got ${value}`);
    process.exit(2);
  }
  return parsed;
}

const useDemo = values.demo || values.stacks === undefined;
const sim = await startKomodoSimulator({
  port: count("port", values.port),
  host: values.host,
  key: values.key,
  secret: values.secret,
  stacks: useDemo ? demoStacks() : count("stacks", values.stacks!),
  faults: { updateDelayMs: count("update-delay-ms", values["update-delay-ms"]) },
});

console.log(
  [
    `Komodo simulator listening on ${sim.url}`,
    `  key:    ${sim.key}`,
    `  secret: ${sim.secret}`,
    `  stacks: ${useDemo ? "demo set" : `${values.stacks} generated`}`,
  ].join("\n"),
);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await sim.close();
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
