/**
 * Where a dashboard page's main-thread script time goes on a phone, per function: the page loaded
 * three times in fresh browser contexts at 412 × 823 px with the CPU slowed 4× (as Lighthouse's
 * mobile preset simulates), with V8's sampling profiler on. Prints the script time per load, then
 * the heaviest functions by own time and, leaving React DOM's internals out, by inclusive time, in
 * milliseconds per load. Lighthouse's figures move by hundreds of milliseconds between runs on a
 * shared machine; these move far less, so they say whether a change helped.
 *
 * `npx node bench/page-profile.ts [/stacks | / | stack]` (`stack`: the first stack's page), against
 * the Komodo simulator's 200 stacks, once their image scans have ended. Needs Chromium.
 */
import { chromium } from "playwright-core";
import { chromiumOrExit, startDashboardBench, stopProcesses } from "./lib.ts";

const LOADS = 3;
const chromiumPath = chromiumOrExit();
const { base, cookie, stackNames, reactBuild } = await startDashboardBench(200);
const argument = process.argv[2] ?? "/stacks";
const path = argument === "stack" ? `/stacks/${stackNames[0]}` : argument;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; columnNumber: number };
  children?: number[];
}
const ownMs = new Map<string, number>();
const inclusiveMs = new Map<string, number>();
const add = (into: Map<string, number>, key: string, ms: number) => into.set(key, (into.get(key) ?? 0) + ms);
const nameOf = ({ callFrame }: ProfileNode) =>
  `${callFrame.functionName || "(anonymous)"} ${callFrame.url.split("/").pop()}:${callFrame.columnNumber}`;

const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
for (let load = 0; load < LOADS; load += 1) {
  const context = await browser.newContext({
    viewport: { width: 412, height: 823 },
    isMobile: true,
    extraHTTPHeaders: { cookie },
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  await page.goto(base + path, { waitUntil: "load" });
  // The page's queries, renders and the event stream's start all happen within this.
  await page.waitForTimeout(6_000);
  const { profile } = (await cdp.send("Profiler.stop")) as unknown as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  profile.samples.forEach((sample, index) => {
    const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    const node = byId.get(sample);
    if (!node || ["(idle)", "(program)", "(root)"].includes(node.callFrame.functionName)) return;
    add(ownMs, nameOf(node), ms);
    const counted = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parentOf.get(id)) {
      const name = nameOf(byId.get(id) as ProfileNode);
      if (!counted.has(name)) add(inclusiveMs, name, ms);
      counted.add(name);
    }
  });
  await context.close();
}
await browser.close();

const heaviest = (times: Map<string, number>, count: number, keep: (name: string) => boolean) =>
  [...times]
    .filter(([name]) => keep(name))
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => `${(ms / LOADS).toFixed(1).padStart(7)}  ${name}`)
    .join("\n");
const reactDom = (name: string) => name.includes(" client.");
const scriptMs = [...ownMs.values()].reduce((sum, ms) => sum + ms, 0) / LOADS;
console.log(
  `${path}, 200 stacks, the dashboard's ${reactBuild} build, 412 × 823 px, CPU 4× slower, ms per load (${LOADS} loads)`,
);
console.log(`Script time (all functions, garbage collection included): ${scriptMs.toFixed(0)} ms per load`);
console.log(`\nOwn time:\n${heaviest(ownMs, 25, () => true)}`);
console.log(
  `\nInclusive, React DOM left out:\n${heaviest(inclusiveMs, 30, (name) => !reactDom(name) && !name.startsWith("(root)"))}`,
);
await stopProcesses();
process.exit(0);
