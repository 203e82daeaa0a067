import type { apiKeyScope, readArea } from "@stackgate/contract";
import type { z } from "zod";

export type KeyScope = z.infer<typeof apiKeyScope>;
export type ReadArea = z.infer<typeof readArea>;
type DeployAction = NonNullable<KeyScope["actions"]>[number];

const ALL_ACTIONS: DeployAction[] = ["pull", "redeploy", "pull-redeploy"];
const ALL_READS: ReadArea[] = ["stacks", "history", "scans", "events"];

/**
 * `*` any characters, `?` one; everything else literal. Patterns hold only letters, digits and
 * `._-*?` (the contract says so), the same meaning SQLite's GLOB gives them.
 */
function patternToRegExp(pattern: string): RegExp {
  const body = pattern
    .split("")
    .map((char) => (char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.\\^$+(){}[\]|]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/** Which stacks a scoped key may see and act on; undefined: every stack. */
export function stackFilter(scope: KeyScope | null | undefined): ((stack: string) => boolean) | undefined {
  if (!scope?.stacks) return undefined;
  const patterns = scope.stacks.map(patternToRegExp);
  return (stack) => patterns.some((pattern) => pattern.test(stack));
}

export const allowsAction = (scope: KeyScope | null | undefined, action: DeployAction) =>
  !scope?.actions || scope.actions.includes(action);

export const allowsRead = (scope: KeyScope | null | undefined, area: ReadArea) =>
  !scope?.read || scope.read.includes(area);

/** Only a scope that says so: keys without a scope never read metrics. */
export const allowsMetrics = (scope: KeyScope | null | undefined) => scope?.metrics === true;

/** What a key may do, in one sentence, for its 403 answers: "pull on stacks web-*; read stacks, events". */
export function describeScope(scope: KeyScope | null | undefined): string {
  const actions = scope?.actions ?? ALL_ACTIONS;
  const reads = scope?.read ?? ALL_READS;
  const where = scope?.stacks ? `stacks ${scope.stacks.join(", ") || "(none)"}` : "every stack";
  const parts = [
    actions.length > 0 ? `${actions.join(", ")} on ${where}` : "run no deploy action",
    reads.length > 0 ? `read ${reads.join(", ")}${scope?.stacks ? ` of ${where}` : ""}` : "read nothing",
  ];
  if (allowsMetrics(scope)) parts.push("read /metrics");
  return parts.join("; ");
}
