/**
 * Issue 4's targets for the background sweep, measured on the real backend (in-process, over a
 * temporary SQLite file) against the Komodo simulator (in the same process, so its work is
 * counted too) and the stand-in trivy run through the real runner:
 *   (a) a cold sweep over 1,000 stacks / 2,000 images: time and upstream requests;
 *   (b) the 2,000 scans it queued: time, and that no more than 2 ever overlapped;
 *   (c) a sweep after Komodo deployed 250 stacks outside Stackgate (3 pages of Updates);
 *   (d) a steady sweep with nothing to do.
 * Target: each sweep under 2 s, with O(pages) upstream requests, not O(stacks).
 *   npx node bench/sweep.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  maxOverlappingRuns,
  readStandInTrivyRuns,
  standInTrivyPath,
  startKomodoSimulator,
} from "@stackgate/simulators";
import { startTestBackend } from "../apps/backend/src/testing/harness.ts";
import { machine } from "./lib.ts";

const STACKS = 1_000;
const EXTERNALLY_DEPLOYED = 250;
const SWEEP_TARGET_MS = 2_000;

const logDir = mkdtempSync(join(tmpdir(), "stackgate-sweep-bench-"));
const runLog = join(logDir, "trivy-runs.jsonl");
// The runner hands STANDIN_TRIVY_* on to every scan.
process.env.STANDIN_TRIVY_LOG = runLog;

const komodo = await startKomodoSimulator({
  stacks: Array.from({ length: STACKS }, (_, n) => ({
    name: `stack-${n}`,
    services: [
      { service: "web", image: `registry.example.com/bench/web-${n}:1.${n % 7}` },
      { service: "worker", image: `registry.example.com/bench/worker-${n}:2.${n % 5}` },
    ],
  })),
});
const app = await startTestBackend({ env: { TRIVY_BIN: standInTrivyPath, LOG_LEVEL: "info" } });
const cookie = await app.signIn();
await app.connectKomodo(cookie, komodo);
const scans = app.backend.services.scans;

interface SweepFigures {
  ms: number;
  requests: Record<string, number>;
  queued: number;
}

/** One sweep round, timed, with the upstream requests it made and the scans it queued. */
async function measureSweep(): Promise<SweepFigures> {
  komodo.clearCalls();
  const linesBefore = app.logLines.length;
  const started = performance.now();
  await scans.sweepNow();
  const ms = performance.now() - started;
  const requests: Record<string, number> = {};
  for (const call of komodo.calls) requests[call.type] = (requests[call.type] ?? 0) + 1;
  const done = app.logLines
    .slice(linesBefore)
    .map((line) => JSON.parse(line))
    .find((entry) => entry.msg === "background sweep done");
  return { ms, requests, queued: done?.queued ?? 0 };
}

const describeRequests = (requests: Record<string, number>) =>
  Object.entries(requests)
    .map(([type, count]) => `${count} ${type}`)
    .join(" + ") || "none";
let missed = false;
const verdict = (ok: boolean) => {
  missed ||= !ok;
  return ok ? "meets target" : "MISSES target";
};
const report = (label: string, figures: SweepFigures, expectedQueued: number) => {
  const total = Object.values(figures.requests).reduce((sum, count) => sum + count, 0);
  console.log(`\n${label}`);
  console.log(
    `    ${figures.ms.toFixed(0)} ms (target < ${SWEEP_TARGET_MS} ms: ${verdict(figures.ms < SWEEP_TARGET_MS)})`,
  );
  console.log(`    upstream requests: ${total} (${describeRequests(figures.requests)}) for ${STACKS} stacks`);
  console.log(
    `    images queued: ${figures.queued} (expected ${expectedQueued}: ${verdict(figures.queued === expectedQueued)})`,
  );
};

console.log(`Machine: ${machine()}`);

const cold = await measureSweep();
report(`(a) Cold sweep: ${STACKS} stacks, ${STACKS * 2} images, nothing stored`, cold, STACKS * 2);

const scansStarted = performance.now();
await scans.idle();
const scanSeconds = (performance.now() - scansStarted) / 1000;
const runs = readStandInTrivyRuns(runLog);
const overlap = maxOverlappingRuns(runs);
console.log(`\n(b) The ${runs.length} scans the cold sweep queued (stand-in trivy, one process each)`);
console.log(
  `    ${scanSeconds.toFixed(1)} s → ${(runs.length / scanSeconds).toFixed(1)} scans/s; most scans at once: ${overlap} (target ≤ 2: ${verdict(overlap <= 2)})`,
);

// Komodo's auto-update redeploys, one a millisecond in the time since every image was requested
// (none in the future, which a sweep could not yet see as past): 250 Updates = 3 pages of 100.
const firstDeployAt = Date.now() - EXTERNALLY_DEPLOYED;
for (let n = 0; n < EXTERNALLY_DEPLOYED; n++) {
  komodo.recordExternalDeploy(`stack-${n * 4}`, { at: firstDeployAt + n });
}
const afterDeploys = await measureSweep();
report(
  `(c) Sweep after ${EXTERNALLY_DEPLOYED} deploys made outside Stackgate`,
  afterDeploys,
  EXTERNALLY_DEPLOYED * 2,
);
await scans.idle();

const steady = await measureSweep();
report("(d) Steady sweep: nothing deployed or due since", steady, 0);

await app.close();
await komodo.close();
rmSync(logDir, { recursive: true, force: true });
process.exit(missed ? 1 : 0);
