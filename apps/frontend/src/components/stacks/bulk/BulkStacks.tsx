import { useCallback, useMemo, useRef, useState } from "react";
import { useCan } from "../../../lib/permissions.ts";
import { useT } from "../../I18nProvider.tsx";
import { showToast } from "../../ui/Toast.tsx";
import type { LiveRun } from "../live-deploys.ts";
import type { StackRow } from "../model.ts";
import { BulkBar } from "./BulkBar.tsx";
import { BulkConfirmDialog, type BulkRequest } from "./BulkConfirmDialog.tsx";
import { BulkRunPanel } from "./BulkRunPanel.tsx";
import { tally } from "./bulk-model.ts";
import { useBulkRun } from "./useBulkRun.ts";
import { useLeaveGuard } from "./useLeaveGuard.tsx";

export interface BulkSelection {
  /** The selected stacks that still exist (a deleted one leaves the selection by itself). */
  selected: ReadonlySet<string>;
  /** Undefined when this person may run no bulk action at all. */
  toggle: ((stack: string) => void) | undefined;
  setMany: (stacks: readonly string[], select: boolean) => void;
  clear: () => void;
}

export function useBulkSelection(rows: readonly StackRow[] | undefined): BulkSelection {
  const mayDeploy = useCan("deploy");
  const mayAdmin = useCan("admin");
  const mayAct = mayDeploy || mayAdmin;
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const selected = useMemo(() => {
    const existing = new Set(rows?.map((row) => row.stack.name));
    return new Set([...chosen].filter((stack) => existing.has(stack)));
  }, [chosen, rows]);
  const toggle = useCallback((stack: string) => {
    setChosen((current) => {
      const next = new Set(current);
      if (!next.delete(stack)) next.add(stack);
      return next;
    });
  }, []);
  const setMany = useCallback((stacks: readonly string[], select: boolean) => {
    setChosen((current) => {
      const next = new Set(current);
      for (const stack of stacks) {
        if (select) next.add(stack);
        else next.delete(stack);
      }
      return next;
    });
  }, []);
  const clear = useCallback(() => setChosen(new Set()), []);
  return { selected, toggle: mayAct ? toggle : undefined, setMany, clear };
}

export interface BulkStacksProps {
  selection: BulkSelection;
  /** The deploys in progress per stack, as the rows show them. */
  liveRuns: Map<string, LiveRun>;
  /** The rows the search and filter show, in list order. */
  shown: readonly StackRow[];
  /** The "Update available" filter is on: offer "Update all". */
  updatesFilter: boolean;
}

/** The selection bar, its confirmation and the live panel of the bulk action under way. */
export function BulkStacks({ selection, liveRuns, shown, updatesFilter }: BulkStacksProps) {
  const t = useT();
  const { run, start, cancel, dismiss } = useBulkRun();
  const [asking, setAsking] = useState<BulkRequest | null>(null);
  const barRef = useRef<HTMLElement>(null);
  const shownNames = useMemo(() => shown.map((row) => row.stack.name), [shown]);
  const updatable = useMemo(
    () => shown.filter((row) => row.updates > 0).map((row) => row.stack.name),
    [shown],
  );
  const counts = run && tally(run);
  const running = counts !== null && !counts.finished;
  const leaveGuard = useLeaveGuard(
    counts?.waiting ?? 0,
    counts ? counts.running + counts.succeeded + counts.failed.length : 0,
  );
  if (!selection.toggle) return null;

  const ordered = () => shownNames.filter((name) => selection.selected.has(name));
  const close = () => {
    if (counts && !counts.finished) {
      const cancelled = cancel();
      showToast({
        tone: "neutral",
        title: t("bulk.panel.closedWhileRunning", { cancelled, running: counts.running }),
      });
    }
    dismiss();
    // The panel and its Close button go away: back to the bar above it, its first control if it has one.
    const bar = barRef.current;
    (bar?.querySelector<HTMLInputElement>("input:not(:disabled)") ?? bar)?.focus();
  };

  return (
    <>
      <BulkBar
        shown={shownNames}
        selected={selection.selected}
        onSelectShown={(select) => selection.setMany(shownNames, select)}
        onClear={selection.clear}
        onAction={(action) => {
          // The shown ones first, in list order; selected ones the filter hides follow.
          const first = ordered();
          const rest = [...selection.selected].filter((name) => !first.includes(name));
          setAsking({ action, stacks: [...first, ...rest] });
        }}
        updatable={updatesFilter ? updatable.length : null}
        onUpdateAll={() => setAsking({ action: "pull-redeploy", stacks: updatable })}
        running={running}
        barRef={barRef}
      />
      {run && <BulkRunPanel key={run.id} run={run} liveRuns={liveRuns} onCancel={cancel} onClose={close} />}
      {leaveGuard}
      <BulkConfirmDialog
        request={asking}
        onCancel={() => setAsking(null)}
        onConfirm={(request, limit) => {
          setAsking(null);
          selection.clear();
          start(request.action, request.stacks, limit);
        }}
      />
    </>
  );
}
