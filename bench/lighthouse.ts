/**
 * Issue 17's Lighthouse figures: mobile and desktop scores of the sign-in page, the overview, the
 * stack list and a stack's page, next to the targets (accessibility 100, best practices 100, mobile
 * performance ≥ 90, cumulative layout shift ≤ 0.1). Lighthouse runs offline against the local
 * Chromium, on the backend, the built frontend and the gateway (with the demo banner) in front of the
 * Komodo simulator's 20 stacks. Needs Chromium (CHROME_PATH or /usr/bin/chromium).
 *
 * `--stacks 200` (issue 24): the pages at that many stacks, mobile only, with Total Blocking Time
 * (target ≤ 200 ms) and time to interactive. First comes `blank`, served by this script: one
 * paragraph, no script, no style sheet, with the security headers the gateway sends with every page.
 * It is the floor that Chromium, Lighthouse and this machine set before any page of ours adds to it
 * (the opener policy alone costs it up to 230 ms: bench/RESULTS.md). With several runs, the last
 * line of each page gives the medians.
 * `--runs 2` measures each page that many times, `--page stacks` only that page; `--report-dir DIR` keeps each run's whole report and its trace
 * (`.trace`, for DevTools). `bench/page-profile.ts` names the functions behind the blocking time.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { launch } from "chrome-launcher";
import lighthouse, { desktopConfig } from "lighthouse";
import { chromiumOrExit, machine, median, startDashboardBench, stopProcesses } from "./lib.ts";

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
const { base, cookie, stackNames, reactBuild } = await startDashboardBench(stackCount);
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
  /** False when Lighthouse gave up on the page (its figures are then missing). */
  finished: boolean;
}

async function audit(path: string, signedIn: boolean, form: "mobile" | "desktop"): Promise<Scores> {
  const result = await lighthouse(
    new URL(path, base).href,
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
    finished: !result.lhr.runtimeError,
  };
}

const pages = [
  { name: "sign-in", path: "/sign-in", signedIn: false },
  { name: "overview", path: "/", signedIn: true },
  { name: "stacks", path: "/stacks", signedIn: true },
  { name: "a stack", path: `/stacks/${stackName}`, signedIn: true },
];

/** Which build was measured: React's development build nearly doubles the script (issue 30). */
const builtAs = `the dashboard's ${reactBuild} build`;
const mark = (ok: boolean) => (ok ? "" : " ✗");
const lighthouseVersion = (await import("lighthouse/package.json", { with: { type: "json" } })).default
  .version;

/** The headers the gateway sends with every page that say how the browser must treat it. */
const SECURITY_HEADERS = [
  "cross-origin-opener-policy",
  "permissions-policy",
  "referrer-policy",
  "x-content-type-options",
  "x-frame-options",
];

/** The floor: one paragraph, no script, no style sheet, with the gateway's security headers. */
async function startBlankPage(): Promise<string> {
  const signIn = await fetch(`${base}/sign-in`);
  await signIn.body?.cancel();
  const headers = Object.fromEntries(
    SECURITY_HEADERS.flatMap((name) => {
      const value = signIn.headers.get(name);
      return value === null ? [] : [[name, value]];
    }),
  );
  const server = createServer((_request, response) => {
    response.writeHead(200, { ...headers, "content-type": "text/html; charset=utf-8" });
    response.end(
      '<!doctype html><html lang="en"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Blank</title><p>No script, no style.</p></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the blank page's server has no port");
  return `http://127.0.0.1:${address.port}/`;
}

if (bigInstall) {
  const blank = { name: "blank", path: await startBlankPage(), signedIn: false };
  console.log(`Lighthouse ${lighthouseVersion}, ${machine()}, ${stackCount} stacks, mobile, ${builtAs}`);
  console.log("Targets: performance ≥ 90, Total Blocking Time ≤ 200 ms");
  console.log("page      | run | performance | blocking | interactive | layout shift | warnings");
  console.log("----------|-----|-------------|----------|-------------|--------------|---------");
  let misses = 0;
  /** One line of the table: a run's figures (`run` its number) or their medians (`med`). */
  const row = (
    name: string,
    run: string,
    scores: Omit<Scores, "warnings" | "finished">,
    warnings?: string[],
  ) => {
    const ok = { performance: scores.performance >= 90, blocking: scores.totalBlockingMs <= 200 };
    const line = `${name.padEnd(9)} | ${run.padStart(3)} | ${`${scores.performance}${mark(ok.performance)}`.padStart(11)} | ${`${Math.round(scores.totalBlockingMs)} ms${mark(ok.blocking)}`.padStart(8)} | ${`${(scores.interactiveMs / 1000).toFixed(1)} s`.padStart(11)} | ${scores.cls.toFixed(3).padStart(12)} |`;
    console.log(warnings ? `${line} ${warnings.length === 0 ? "none" : warnings.join(" / ")}` : line);
    return Object.values(ok).filter((value) => !value).length;
  };
  for (const page of [blank, ...pages].filter(
    (page) => !options.page || page.name === options.page || page === blank,
  )) {
    const { name, path, signedIn } = page;
    await fetch(new URL(path, base), { headers: signedIn ? { cookie } : {} }).then((response) =>
      response.text(),
    );
    const measured: Scores[] = [];
    for (let run = 1; run <= runs; run += 1) {
      const scores = await audit(path, signedIn, "mobile");
      // A run Lighthouse could not finish (NO_NAVSTART under load) has no figures for the medians.
      if (scores.finished) measured.push(scores);
      const missed = row(name, String(run), scores, scores.warnings);
      // The floor is not a page of ours: its misses say what the machine allows, not what to mend.
      if (page !== blank) misses += missed;
    }
    if (runs > 1) {
      const middle = (pick: (scores: Scores) => number) => median(measured.map(pick));
      row(name, "med", {
        performance: middle((scores) => scores.performance),
        accessibility: middle((scores) => scores.accessibility),
        bestPractices: middle((scores) => scores.bestPractices),
        totalBlockingMs: middle((scores) => scores.totalBlockingMs),
        interactiveMs: middle((scores) => scores.interactiveMs),
        cls: middle((scores) => scores.cls),
      });
    }
  }
  console.log(misses === 0 ? "Every target met." : `${misses} figure(s) of our pages miss their target (✗).`);
  chrome.kill();
  await stopProcesses();
  process.exit(0);
}
console.log(`Lighthouse ${lighthouseVersion}, ${machine()}, ${builtAs}`);
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
