import type { Role } from "@stackgate/contract";
import type { Actor } from "../audit/service.ts";
import type { KeyScope, RunVisibility, StackVisibility } from "./apikeys/scope.ts";

interface Someone {
  /** The person, or the API key's owner. */
  userId: string;
  /** Their email now (the key owner's for a key). */
  email: string;
  /** As the history names callers: the person's name, or `API Key: <name>`. */
  actorName: string;
  /** The person's role now: for an API key, its owner's, read on every request. */
  role: Role;
  /** The stacks the caller may see and act on. */
  stacks: StackVisibility;
  /**
   * The deploy runs the caller may follow: those of its stacks, or for a key admitted by its own
   * runs only (`orOwnRuns` in the contract), the runs that key started.
   */
  runs: RunVisibility;
}

/** Who is making a request, as recorded in the history, the audit and deploy events. */
export type Caller =
  | (Someone & { via: "session"; sessionId: string })
  | (Someone & { via: "apiKey"; keyId: string; scope: KeyScope | null });

export const actorOf = (caller: Caller): Actor => ({
  id: caller.userId,
  name: caller.actorName,
  email: caller.email,
  keyId: caller.via === "apiKey" ? caller.keyId : null,
});
