/**
 * Issue 17's Lighthouse figures: mobile and desktop scores of the sign-in page, the overview, the
 * stack list and a stack's page, next to the targets (accessibility 100, best practices 100, mobile
 * performance ≥ 90, cumulative layout shift ≤ 0.1). Lighthouse runs offline against the local
 * Chromium, on the backend, the built frontend and the gateway (with the demo banner) in front of the
 * Komodo simulator's 20 stacks. Needs Chromium (CHROME_PATH or /usr/bin/chromium).
 *
 * `--stacks 200` (issue 24): the pages at that many stacks, mobile only, with Total Blocking Time
 * (target ≤ 200 ms) and time to interactive; sign-in shows the floor the machine itself sets.
 * `--runs 2` measures each page that many times, `--page stacks` only that page; `--report-dir DIR` keeps each run's whole report and its trace
 * (`.trace`, for DevTools). `bench/page-profile.ts` names the functions behind the blocking time.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { launch } from "chrome-launcher";
import lighthouse, { desktopConfig } from "lighthouse";
import { chromiumOrExit, machine, startDashboardBench, stopProcesses } from "./lib.ts";

const { values: options } = parseArgs({
  options: {
    stacks: { type: "string", default: "20" },
    runs: { type: "string", default: "1" },
    page: { type: "string" },
    /** Writes each run's whole report there (JSON), for the long tasks and the script costs. */
    "report-dir": { type: "string" },
  },
});
const stackCount = Number(options.stacks);
const runs = Number(options.runs);
const bigInstall = stackCount !== 20;
const chromiumPath = chromiumOrExit();
const { base, cookie, stackNames } = await startDashboardBench(stackCount);
const stackName = stackNames[0] ?? "";

const chrome = await launch({
  chromePath: chromiumPath,
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});

interface Scores {
  performance: number;
  accessibility: number;
  bestPractices: number;
  cls: number;
  totalBlockingMs: number;
  interactiveMs: number;
  warnings: string[];
}

async function audit(path: string, signedIn: boolean, form: "mobile" | "desktop"): Promise<Scores> {
  const result = await lighthouse(
    base + path,
    {
      port: chrome.port,
      output: "json",
      logLevel: "error",
      onlyCategories: ["performance", "accessibility", "best-practices"],
      extraHeaders: signedIn ? { Cookie: cookie } : undefined,
    },
    form === "desktop" ? desktopConfig : undefined,
  );
  if (!result) throw new Error(`Lighthouse returned nothing for ${path}`);
  if (options["report-dir"]) {
    mkdirSync(options["report-dir"], { recursive: true });
    const file = `${path.replace(/\W+/g, "-").replace(/^-|-$/g, "") || "overview"}-${form}-${Date.now()}.json`;
    writeFileSync(join(options["report-dir"], file), JSON.stringify(result.lhr));
    writeFileSync(
      join(options["report-dir"], file.replace(/\.json$/, ".trace")),
      JSON.stringify(result.artifacts.Trace),
    );
  }
  const { categories, audits } = result.lhr;
  const score = (id: string) => Math.round((categories[id]?.score ?? 0) * 100);
  return {
    performance: score("performance"),
    accessibility: score("accessibility"),
    bestPractices: score("best-practices"),
    cls: audits["cumulative-layout-shift"]?.numericValue ?? Number.NaN,
    totalBlockingMs: audits["total-blocking-time"]?.numericValue ?? Number.NaN,
    interactiveMs: audits.interactive?.numericValue ?? Number.NaN,
    warnings: [
      ...(result.lhr.runtimeError ? [`error: ${result.lhr.runtimeError.message}`] : []),
      ...result.lhr.runWarnings,
    ],
  };
}

const pages = [
  { name: "sign-in", path: "/sign-in", signedIn: false },
  { name: "overview", path: "/", signedIn: true },
  { name: "stacks", path: "/stacks", signedIn: true },
  { name: "a stack", path: `/stacks/${stackName}`, signedIn: true },
];

const mark = (ok: boolean) => (ok ? "" : " ✗");
const lighthouseVersion = (await import("lighthouse/package.json", { with: { type: "json" } })).default
  .version;

if (bigInstall) {
  console.log(`Lighthouse ${lighthouseVersion}, ${machine()}, ${stackCount} stacks, mobile`);
  console.log("Targets: performance ≥ 90, Total Blocking Time ≤ 200 ms");
  console.log("page      | run | performance | blocking | interactive | layout shift | warnings");
  console.log("----------|-----|-------------|----------|-------------|--------------|---------");
  let misses = 0;
  for (const { name, path, signedIn } of pages.filter(
    (page) => !options.page || page.name === options.page,
  )) {
    await fetch(base + path, { headers: signedIn ? { cookie } : {} }).then((response) => response.text());
    for (let run = 1; run <= runs; run += 1) {
      const scores = await audit(path, signedIn, "mobile");
      const ok = { performance: scores.performance >= 90, blocking: scores.totalBlockingMs <= 200 };
      misses += Object.values(ok).filter((value) => !value).length;
      console.log(
        `${name.padEnd(9)} | ${String(run).padStart(3)} | ${`${scores.performance}${mark(ok.performance)}`.padStart(11)} | ${`${Math.round(scores.totalBlockingMs)} ms${mark(ok.blocking)}`.padStart(8)} | ${`${(scores.interactiveMs / 1000).toFixed(1)} s`.padStart(11)} | ${scores.cls.toFixed(3).padStart(12)} | ${scores.warnings.length === 0 ? "none" : scores.warnings.join(" / ")}`,
      );
    }
  }
  console.log(misses === 0 ? "Every target met." : `${misses} figure(s) miss their target (✗).`);
  chrome.kill();
  await stopProcesses();
  process.exit(0);
}
console.log(`Lighthouse ${lighthouseVersion}, ${machine()}`);
console.log("Targets: accessibility 100, best practices 100, mobile performance ≥ 90, layout shift ≤ 0.1");
console.log("page      | form    | performance | accessibility | best practices | layout shift");
console.log("----------|---------|-------------|---------------|----------------|-------------");
let missed = 0;
for (const { name, path, signedIn } of pages) {
  // A warm-up visit, so the one measured finds the gateway's compressed assets and Komodo's answers ready.
  await fetch(base + path, { headers: signedIn ? { cookie } : {} }).then((response) => response.text());
  for (const form of ["mobile", "desktop"] as const) {
    const scores = await audit(path, signedIn, form);
    const ok = {
      performance: form === "desktop" || scores.performance >= 90,
      accessibility: scores.accessibility === 100,
      bestPractices: scores.bestPractices === 100,
      cls: scores.cls <= 0.1,
    };
    missed += Object.values(ok).filter((value) => !value).length;
    console.log(
      `${name.padEnd(9)} | ${form.padEnd(7)} | ${`${scores.performance}${mark(ok.performance)}`.padStart(11)} | ${`${scores.accessibility}${mark(ok.accessibility)}`.padStart(13)} | ${`${scores.bestPractices}${mark(ok.bestPractices)}`.padStart(14)} | ${`${scores.cls.toFixed(3)}${mark(ok.cls)}`.padStart(12)}`,
    );
  }
}
console.log(missed === 0 ? "Every target met." : `${missed} figure(s) miss their target (✗).`);

chrome.kill();
await stopProcesses();
