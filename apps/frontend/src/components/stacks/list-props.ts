import type { RefObject } from "react";
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
  /** The stacks chosen for a bulk action. */
  selected: ReadonlySet<string>;
  /** Absent when this person may run no bulk action: the rows then have no checkbox. */
  onToggleSelect: ((stack: string) => void) | undefined;
  /** More rows follow once the marker (after the last row) comes into view (useRowsInView). */
  more: boolean;
  markerRef: RefObject<HTMLElement | null>;
}

export interface StackRowProps
  extends Omit<StackListProps, "rows" | "runs" | "selected" | "more" | "markerRef"> {
  row: StackRow;
  run: LiveRun | undefined;
  selected: boolean;
}
