import type { Reporter, TestModule } from "vitest/node";

/** Ends every run with one plain line, `<project>: N passed, N failed`, that any CI log reader understands. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed += 1;
        else if (state === "failed") counts.failed += 1;
        else counts.skipped += 1;
      }
    }
    const project = testModules[0]?.project.name || "tests";
    const skipped = counts.skipped ? `, ${counts.skipped} skipped` : "";
    console.log(`\n${project}: ${counts.passed} passed, ${counts.failed} failed${skipped}`);
  }
}
