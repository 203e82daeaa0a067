import type { apiKeyScope, ReadArea } from "@stackgate/contract";
import type { z } from "zod";

export type KeyScope = z.infer<typeof apiKeyScope>;
type DeployAction = NonNullable<KeyScope["actions"]>[number];

const ALL_ACTIONS: DeployAction[] = ["pull", "redeploy", "pull-redeploy"];
const ALL_READS: ReadArea[] = ["stacks", "history", "scans", "events"];

/**
 * Whether `name` matches `pattern`: `*` any run of characters, `?` one, everything else literal
 * (SQLite's GLOB reads the contract's patterns the same way). No regular expression: a backtracking
 * one takes time exponential in the number of `*` (`*****b` against a long name froze the backend).
 * Only the last `*` is ever returned to, so the time is at most the pattern's length times the name's.
 */
export function matchesStackPattern(pattern: string, name: string): boolean {
  let at = 0;
  let inPattern = 0;
  let lastStar = -1;
  let resumeAt = 0;
  while (at < name.length) {
    const wanted = pattern[inPattern];
    if (wanted === "*") {
      lastStar = inPattern++;
      resumeAt = at;
    } else if (wanted !== undefined && (wanted === "?" || wanted === name[at])) {
      inPattern++;
      at++;
    } else if (lastStar >= 0) {
      inPattern = lastStar + 1;
      at = ++resumeAt;
    } else {
      return false;
    }
  }
  while (pattern[inPattern] === "*") inPattern++;
  return inPattern === pattern.length;
}

/** A pattern as stored: a run of `*` means what one does. */
export const normalStackPattern = (pattern: string) => pattern.replace(/\*{2,}/g, "*");

/** A scope as stored: its stack patterns without runs of `*`. */
export const normalScope = (scope: KeyScope): KeyScope =>
  scope.stacks ? { ...scope, stacks: scope.stacks.map(normalStackPattern) } : scope;

/**
 * Which stacks a caller may see and act on. Every handler that lists, streams or acts on stacks
 * passes its caller's to the service, which takes it as a required argument.
 */
export interface StackVisibility {
  admits(stack: string): boolean;
  /** The stack patterns, for SQL (the history); null: every stack. */
  readonly patterns: readonly string[] | null;
}

export const EVERY_STACK: StackVisibility = { admits: () => true, patterns: null };

/** A stack the caller may not see: answered as a stack that does not exist. */
export class StackOutOfSight extends Error {
  constructor(stack: string) {
    super(`No stack named '${stack}'`);
    this.name = "StackOutOfSight";
  }
}

/** For a service about to act on `stack`: refuses a stack outside what the caller may see. */
export function requireVisible(visible: StackVisibility, stack: string) {
  if (!visible.admits(stack)) throw new StackOutOfSight(stack);
}

/** The stacks a key's scope lets it see: every stack when the scope names none. */
export function visibilityOf(scope: KeyScope | null | undefined): StackVisibility {
  if (!scope?.stacks) return EVERY_STACK;
  const patterns = scope.stacks.map(normalStackPattern);
  return {
    admits: (stack) => patterns.some((pattern) => matchesStackPattern(pattern, stack)),
    patterns,
  };
}

export const allowsAction = (scope: KeyScope | null | undefined, action: DeployAction) =>
  !scope?.actions || scope.actions.includes(action);

/** Whether a scope allows some deploy action on some stack. */
export const allowsSomeDeploy = (scope: KeyScope | null | undefined) =>
  (scope?.actions ?? ALL_ACTIONS).length > 0 && (!scope?.stacks || scope.stacks.length > 0);

/**
 * Which deploy runs a caller may follow (a run by id, the event stream). Runs carry the id of the
 * API key that started them (`keyId`: the history's `key_id`, and the runs on the event bus).
 */
export interface RunVisibility {
  admits(run: { stack: string; keyId?: string | null }): boolean;
}

/** The runs of the stacks `stacks` admits; with `keyId`, only those that key started. */
export const runsVisibleIn = (stacks: StackVisibility, keyId?: string): RunVisibility => ({
  admits: (run) => stacks.admits(run.stack) && (keyId === undefined || run.keyId === keyId),
});

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
