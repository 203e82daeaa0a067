import type {
  deployAction,
  deployEvent,
  deployRun,
  deployRunStatus,
  deployStep,
  finishedRun,
} from "@stackgate/contract";
import type { z } from "zod";

/**
 * Why a deploy did not succeed: Komodo refused or failed it, Komodo has no such stack, it could not
 * be started or finished (no connection, no history, Stackgate stopping), Komodo did not finish it
 * in time, or a bug.
 */
export type DeployFailureKind =
  | "komodo-failed"
  | "unknown-stack"
  | "unavailable"
  | "timed-out"
  | "unexpected";

/** What only the backend knows of a run: the contract's schemas strip it from every answer and event sent. */
interface RunInternals {
  /** The API key that started it (the history's `key_id`), which tells a key its own runs. */
  keyId?: string | null;
}

/** A deploy as the API shows it: running, finished, and the events that announce them. */
export type DeployRun = z.infer<typeof deployRun> & RunInternals;
export type FinishedRun = z.infer<typeof finishedRun> &
  RunInternals & {
    /** Why it failed, when the backend that ran it knows (not kept in the history). */
    failure?: DeployFailureKind;
  };
type WithInternals<Event> = Event extends { type: "started" }
  ? { type: "started"; run: DeployRun }
  : Event extends { type: "finished" }
    ? { type: "finished"; run: FinishedRun }
    : Event;
export type DeployEvent = WithInternals<z.infer<typeof deployEvent>>;
export type DeployStep = z.infer<typeof deployStep>;
export type DeployRunStatus = z.infer<typeof deployRunStatus>;
export type DeployAction = z.infer<typeof deployAction>;
