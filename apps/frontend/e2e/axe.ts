/**
 * axe-core in a page: its source is evaluated in the page (through the DevTools protocol, so the
 * gateway's CSP does not apply to it), then `axe.run` checks the document against WCAG 2.0/2.1/2.2
 * A and AA and axe's best practices.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

export interface AxeViolation {
  rule: string;
  impact: string | null;
  help: string;
  /** One line per offending element: its CSS target and what axe says is wrong with it. */
  elements: string[];
}

/** The violations axe finds in the page as it is now (empty when clean). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => "axe" in window);
  if (!loaded) await page.evaluate(axeSource);
  return page.evaluate(async (tags) => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is the injected global, typed in Node only
    const axe = (window as any).axe;
    const results = await axe.run(document, {
      runOnly: { type: "tag", values: tags },
      resultTypes: ["violations"],
    });
    return results.violations.map(
      (violation: {
        id: string;
        impact: string | null;
        help: string;
        nodes: { target: unknown[]; failureSummary?: string }[];
      }) => ({
        rule: violation.id,
        impact: violation.impact,
        help: violation.help,
        elements: violation.nodes.map(
          (node) => `${node.target.join(" ")} — ${(node.failureSummary ?? "").replace(/\s+/g, " ").trim()}`,
        ),
      }),
    );
  }, AXE_TAGS);
}

/** Readable lines for a failure message: `state: rule (impact) help` and each element under it. */
export function describeViolations(state: string, violations: AxeViolation[]): string[] {
  return violations.flatMap((violation) => [
    `${state}: ${violation.rule} (${violation.impact}) ${violation.help}`,
    ...violation.elements.map((element) => `    ${element}`),
  ]);
}
