import type {
  deployAction,
  deployEvent,
  deployRun,
  deployRunStatus,
  deployStep,
  finishedRun,
} from "@stackgate/contract";
import type { z } from "zod";

/** A deploy as the API shows it: running, finished, and the events that announce them. */
export type DeployRun = z.infer<typeof deployRun>;
export type FinishedRun = z.infer<typeof finishedRun>;
export type DeployEvent = z.infer<typeof deployEvent>;
export type DeployStep = z.infer<typeof deployStep>;
export type DeployRunStatus = z.infer<typeof deployRunStatus>;
export type DeployAction = z.infer<typeof deployAction>;
