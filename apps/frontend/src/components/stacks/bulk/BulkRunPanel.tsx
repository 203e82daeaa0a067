import { useEffect, useRef } from "react";
import { useT } from "../../I18nProvider.tsx";
import { StatusMark } from "../../ui/Badge.tsx";
import { Button } from "../../ui/Button.tsx";
import { stackHref } from "../../ui/StackLink.tsx";
import { formatDuration, useNow } from "../../ui/useNow.ts";
import type { StackRunState } from "./bulk-model.ts";
import { stackCount, tally } from "./bulk-model.ts";
import type { BulkRun } from "./useBulkRun.ts";

export interface BulkRunPanelProps {
  run: BulkRun;
  /** Stops the stacks not yet sent; the sent ones run on. */
  onCancel: () => void;
  onClose: () => void;
}

/** The live state of a bulk action, one line per stack, ending with one summary. */
export function BulkRunPanel({ run, onCancel, onClose }: BulkRunPanelProps) {
  const t = useT();
  const counts = tally(run);
  const total = run.stacks.length;
  const done = counts.succeeded + counts.failed.length + counts.cancelled;
  const summaryRef = useRef<HTMLDivElement>(null);
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
        <h2 className="text-sm font-semibold">
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
          {t("bulk.panel.cancelled", { cancelled: run.cancelledUnsent, sent: total - run.cancelledUnsent })}
        </p>
      )}
      <ul
        aria-label={t("bulk.panel.stacks")}
        className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-2 xl:grid-cols-3"
      >
        {run.stacks.map((stack) => (
          <li key={stack} className="flex min-h-7 min-w-0 items-center gap-2">
            <a
              href={stackHref(stack)}
              className="min-w-0 shrink truncate py-0.5 font-medium hover:underline"
              title={stack}
            >
              <bdi>{stack}</bdi>
            </a>
            <StackRunMark state={run.states.get(stack) ?? { status: "waiting" }} />
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

function StackRunMark({ state }: { state: StackRunState }) {
  const t = useT();
  switch (state.status) {
    case "waiting":
      return <StatusMark tone="neutral" label={t("bulk.state.waiting")} />;
    case "running":
      return <RunningMark startedAt={state.startedAt} />;
    case "succeeded":
      return <StatusMark tone="success" label={t("bulk.state.succeeded")} />;
    case "cancelled":
      return <StatusMark tone="neutral" label={t("bulk.state.cancelled")} />;
    case "failed":
      return (
        <span className="flex min-w-0 flex-wrap items-baseline gap-x-1.5 text-xs">
          <StatusMark tone="danger" label={t("bulk.state.failed")} />
          <span className="min-w-0 break-words text-danger-text">{state.reason}</span>
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
