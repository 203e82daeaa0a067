import { useT } from "../I18nProvider.tsx";
import { Badge, StatusMark } from "../ui/Badge.tsx";
import { formatDuration, useNow } from "../ui/useNow.ts";
import { Actor } from "./Actor.tsx";
import type { LiveRun } from "./live-deploys.ts";
import type { HistoryEntry, StateInfo } from "./model.ts";

/** The state's word: translated for Komodo's known states, as Komodo said it otherwise. */
export function useStateLabel(): (state: StateInfo) => string {
  const t = useT();
  return (state) => (state.known ? t(`stacks.state.${state.known}`) : state.raw);
}

/**
 * "Redeploying 0:12 · Ada Admin": a live mark for a deploy in progress, whoever started it. Where room
 * is short, the author gives way first, then the action's word is cut; the elapsed time always shows.
 */
export function LiveRunMark({ run, compact = false }: { run: LiveRun; compact?: boolean }) {
  const t = useT();
  const now = useNow();
  const elapsed = formatDuration(now - run.startedAt.getTime());
  return (
    <span className="inline-flex min-w-0 max-w-full items-center">
      <StatusMark tone="progress" label={t(`stacks.live.${run.action}`)} truncate />
      <span className="sr-only">{t("stacks.live.elapsed")}</span>
      <span className="ml-1.5 shrink-0 font-mono text-xs tabular-nums text-progress-text">{elapsed}</span>
      {/* Only the room left (basis 0), spacing included, so that a hidden author takes none. */}
      <span className="inline-flex min-w-0 flex-[1_1_0] items-center overflow-hidden text-xs text-fg-muted">
        <span aria-hidden="true" className="pr-1 pl-1.5">
          ·
        </span>
        <span className="sr-only">{t("stacks.live.byLabel")}</span>
        <Actor name={run.actorName} via={run.via} compact={compact} />
      </span>
    </span>
  );
}

export interface StackStateProps {
  state: StateInfo;
  run: LiveRun | undefined;
  lastDeploy: HistoryEntry | undefined;
  /** In list rows: the deploy's author in short (initials, key name). */
  compact?: boolean;
}

/** A stack's state as mark and word; a live deploy replaces it; a failed last deploy is added. */
export function StackState({ state, run, lastDeploy, compact = false }: StackStateProps) {
  const t = useT();
  const label = useStateLabel();
  if (run) return <LiveRunMark run={run} compact={compact} />;
  return (
    <span className="inline-flex items-center gap-2">
      <StatusMark tone={state.tone} label={label(state)} />
      {lastDeploy?.success === false && (
        <span title={t("stacks.lastDeployFailed.reason", { reason: lastDeploy.message })}>
          <Badge tone="danger">{t("stacks.lastDeployFailed")}</Badge>
        </span>
      )}
    </span>
  );
}
