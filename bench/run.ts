/** `npm run bench`: every benchmark in turn, each in its own process so none disturbs another. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const benchmarks = ["api.ts", "sweep.ts", "flood.ts", "deploy-latency.ts", "footprint.ts"];
// Issue 17: bytes per visit with and without compression; Lighthouse scores against the targets.
benchmarks.push("transfer.ts", "lighthouse.ts");
// Issue 23: event streams through the gateway against straight to the backend, and the gateway's memory after.
benchmarks.push("gateway-streams.ts");
let failed = false;
for (const benchmark of benchmarks) {
  console.log(`\n=== bench/${benchmark} ===`);
  // flood.ts and footprint.ts hold thousands of sockets open: the soft limit on open files is raised
  // where the hard limit allows it (a process cannot raise its own; they say so when it is too low).
  const result = spawnSync(
    "sh",
    [
      "-c",
      'ulimit -n 16384 2>/dev/null; exec "$@"',
      "sh",
      process.execPath,
      join(import.meta.dirname, benchmark),
    ],
    { stdio: "inherit" },
  );
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
