import { useEffect, useRef } from "react";
import { useT } from "../../I18nProvider.tsx";
import { StatusMark } from "../../ui/Badge.tsx";
import { Button } from "../../ui/Button.tsx";
import { stackHref } from "../../ui/StackLink.tsx";
import { formatDuration, useNow } from "../../ui/useNow.ts";
import type { LiveRun } from "../live-deploys.ts";
import { LiveRunElapsed } from "../StackState.tsx";
import type { BulkAction, StackRunState } from "./bulk-model.ts";
import { isDeployAction, stackCount, tally } from "./bulk-model.ts";
import type { BulkRun } from "./useBulkRun.ts";

export interface BulkRunPanelProps {
  run: BulkRun;
  /** The deploys in progress per stack, as the rows show them: the panel shows the same word and time. */
  liveRuns: Map<string, LiveRun>;
  /** Stops the stacks not yet sent; the sent ones run on. */
  onCancel: () => void;
  onClose: () => void;
}

/** The live state of a bulk action, one line per stack, ending with one summary. */
export function BulkRunPanel({ run, liveRuns, onCancel, onClose }: BulkRunPanelProps) {
  const t = useT();
  const counts = tally(run);
  const total = run.stacks.length;
  const done = counts.succeeded + counts.failed.length + counts.cancelled;
  const headingRef = useRef<HTMLHeadingElement>(null);
  const summaryRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Confirming closed the dialog and its button is gone: the keyboard goes on here, once the
    // dialog has given the focus back (to nothing) in this same commit.
    const frame = requestAnimationFrame(() => headingRef.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, []);
  useEffect(() => {
    // The summary is where the keyboard goes once everything has finished.
    if (counts.finished) summaryRef.current?.focus();
  }, [counts.finished]);

  return (
    <section
      aria-label={t(`bulk.panel.title.${run.action}`, { stacks: stackCount(total, t) })}
      className="flex flex-col gap-2 rounded-md border border-line bg-surface p-3"
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <h2 ref={headingRef} tabIndex={-1} className="rounded-sm text-sm font-semibold">
          {t(`bulk.panel.title.${run.action}`, { stacks: stackCount(total, t) })}
        </h2>
        <span className="text-xs tabular-nums text-fg-muted">
          {t("bulk.panel.progress", { done, total, limit: run.limit })}
        </span>
        <span className="ml-auto flex gap-1.5">
          {counts.waiting > 0 && (
            <Button size="sm" onClick={onCancel}>
              {t("bulk.panel.cancelRest", { count: counts.waiting })}
            </Button>
          )}
          <Button size="sm" variant="ghost" onClick={onClose}>
            {t("bulk.panel.close")}
          </Button>
        </span>
      </div>
      {!counts.finished && <p className="text-xs text-fg-muted">{t("bulk.panel.leaving")}</p>}
      {run.cancelledUnsent !== null && (
        <p role="status" className="text-xs text-fg">
          {total - run.cancelledUnsent === 1
            ? t("bulk.panel.cancelledOneSent", { cancelled: run.cancelledUnsent })
            : t("bulk.panel.cancelled", {
                cancelled: run.cancelledUnsent,
                sent: total - run.cancelledUnsent,
              })}
        </p>
      )}
      <ul
        aria-label={t("bulk.panel.stacks")}
        className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-2 xl:grid-cols-3"
      >
        {run.stacks.map((stack) => (
          // A long failure reason wraps under the name, which keeps its whole width.
          <li key={stack} className="flex min-h-7 min-w-0 flex-wrap items-center gap-x-2">
            <a
              href={stackHref(stack)}
              className="max-w-full truncate py-0.5 font-medium hover:underline"
              title={stack}
            >
              <bdi>{stack}</bdi>
            </a>
            <StackRunMark
              state={run.states.get(stack) ?? { status: "waiting" }}
              action={run.action}
              live={liveRuns.get(stack)}
            />
          </li>
        ))}
      </ul>
      {counts.finished && (
        <div
          ref={summaryRef}
          tabIndex={-1}
          role="status"
          className="rounded-md bg-surface-muted/60 px-3 py-2 text-sm outline-none focus-visible:ring-2"
        >
          <p className="font-medium">
            {t("bulk.summary", { succeeded: counts.succeeded, failed: counts.failed.length })}
            {counts.cancelled > 0 && ` ${t("bulk.summaryCancelled", { count: counts.cancelled })}`}
          </p>
          {counts.failed.length > 0 && (
            <p className="mt-1">
              {t("bulk.summaryFailed")}{" "}
              {counts.failed.map((stack, index) => (
                <span key={stack}>
                  {index > 0 && ", "}
                  <a
                    href={stackHref(stack)}
                    className="inline-block py-0.5 font-medium text-danger-text underline"
                  >
                    <bdi>{stack}</bdi>
                  </a>
                </span>
              ))}
            </p>
          )}
        </div>
      )}
    </section>
  );
}

function StackRunMark({
  state,
  action,
  live,
}: {
  state: StackRunState;
  action: BulkAction;
  live: LiveRun | undefined;
}) {
  const t = useT();
  switch (state.status) {
    case "waiting":
      return <StatusMark tone="neutral" label={t("bulk.state.waiting")} />;
    case "running":
      // A deploy shows as its row does (the row's word and clock); other actions have no row mark.
      return isDeployAction(action) ? (
        <span className="inline-flex min-w-0 max-w-full items-center">
          <LiveRunElapsed action={action} startedAt={live?.startedAt ?? new Date(state.startedAt)} />
        </span>
      ) : (
        <RunningMark startedAt={state.startedAt} />
      );
    case "succeeded":
      return <StatusMark tone="success" label={t("bulk.state.succeeded")} />;
    case "cancelled":
      return <StatusMark tone="neutral" label={t("bulk.state.cancelled")} />;
    case "failed":
      return (
        <span className="flex min-w-0 flex-wrap items-baseline gap-x-1.5 text-xs">
          <StatusMark tone="danger" label={t("bulk.state.failed")} />
          <span className="min-w-0 break-words text-danger-text">
            <bdi>{state.reason}</bdi>
          </span>
        </span>
      );
  }
}

function RunningMark({ startedAt }: { startedAt: number }) {
  const t = useT();
  const now = useNow();
  return (
    <span className="inline-flex items-baseline">
      <StatusMark tone="progress" label={t("bulk.state.running")} />
      <span className="sr-only">{t("stacks.live.elapsed")}</span>
      <span className="ml-1.5 font-mono text-xs tabular-nums text-progress-text">
        {formatDuration(now - startedAt)}
      </span>
    </span>
  );
}
