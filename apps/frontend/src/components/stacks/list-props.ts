import type { ImageScan } from "../security/scan-model.ts";
import type { LiveRun } from "./live-deploys.ts";
import type { DeployAction, Stack, StackRow } from "./model.ts";

/** What both stack list layouts (table and compact list) receive. */
export interface StackListProps {
  rows: readonly StackRow[];
  runs: Map<string, LiveRun>;
  scans: Map<string, ImageScan>;
  /** The scan list failed to load: the stacks are shown without vulnerability markers. */
  scansUnavailable: boolean;
  onAsk: (stack: Stack, action: DeployAction) => void;
}

export interface StackRowProps extends Omit<StackListProps, "rows" | "runs"> {
  row: StackRow;
  run: LiveRun | undefined;
}
