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
  return (
    <span className="inline-flex min-w-0 max-w-full items-center">
      <LiveRunElapsed action={run.action} startedAt={run.startedAt} />
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

/**
 * "Redeploying 0:12": what a deploy in progress does and for how long, the same words and the same
 * clock wherever it shows (a row, the bulk panel). The word may be cut; the time never is.
 */
export function LiveRunElapsed({ action, startedAt }: Pick<LiveRun, "action" | "startedAt">) {
  const t = useT();
  const now = useNow();
  return (
    <>
      <StatusMark tone="progress" label={t(`stacks.live.${action}`)} truncate />
      <span className="sr-only">{t("stacks.live.elapsed")}</span>
      <span className="ml-1.5 shrink-0 font-mono text-xs tabular-nums text-progress-text">
        {formatDuration(now - startedAt.getTime())}
      </span>
    </>
  );
}

export interface StackStateProps {
  state: StateInfo;
  run: LiveRun | undefined;
  lastDeploy: HistoryEntry | undefined;
  /** In list rows: the deploy's author in short (initials, key name). */
  compact?: boolean;
}

/** A stack's state as mark and word; a live deploy replaces it; a failed or unstable last deploy is added. */
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
      {lastDeploy?.settle?.state === "unstable" && (
        <span title={t("stacks.lastDeployUnstable.reason", { reason: lastDeploy.settle.reason ?? "—" })}>
          <Badge tone="warning">{t("stacks.lastDeployUnstable")}</Badge>
        </span>
      )}
    </span>
  );
}
