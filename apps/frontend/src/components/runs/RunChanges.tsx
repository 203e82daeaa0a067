import { useT } from "../I18nProvider.tsx";
import { Card } from "../ui/Card.tsx";
import { CopyButton } from "../ui/CopyButton.tsx";
import { ChangeArrow, ChangeWord, DigestChange, DigestText } from "./RunMarks.tsx";
import type { RunStatus } from "./RunPage.tsx";
import { type FinishedRun, type ServiceChange, summarizeChanges } from "./run-model.ts";

/** Each service's image before and after the run, and a repository stack's commit. */
export function RunChanges({ run }: { run: RunStatus }) {
  const t = useT();
  return (
    <Card title={t("runs.changes.title")} flush>
      {run.status === "running" ? (
        <p className="px-4 py-3 text-sm text-fg-muted">{t("runs.changes.pending")}</p>
      ) : (
        <FinishedChanges run={run} />
      )}
    </Card>
  );
}

function FinishedChanges({ run }: { run: FinishedRun }) {
  const t = useT();
  const summary = summarizeChanges(run.changes);
  return (
    <div className="flex flex-col">
      {summary.kind === "not-recorded" ? (
        <p className="px-4 py-3 text-sm text-fg-muted">{t("runs.changes.notRecorded")}</p>
      ) : (
        <>
          {summary.kind === "no-change" && (
            <p className="border-b border-line px-4 py-2.5 text-sm">
              <span className="font-medium">{t("runs.changes.noChange")}</span>
              <span className="text-fg-muted"> · {t("runs.changes.noChangeHint")}</span>
            </p>
          )}
          <ul aria-label={t("runs.changes.label")} className="divide-y divide-line">
            {run.changes.map((change) => (
              <ChangeItem key={change.service} change={change} />
            ))}
          </ul>
        </>
      )}
      {run.commit && <CommitLine commit={run.commit} />}
    </div>
  );
}

/** One service: its name and image, then its digest before and after (each copyable) and the verdict. */
function ChangeItem({ change }: { change: ServiceChange }) {
  return (
    <li className="flex flex-wrap items-center gap-x-3 gap-y-1 px-4 py-2 text-sm">
      <span className="flex min-w-0 flex-[1_1_14rem] items-baseline gap-2">
        <span className="shrink-0 font-medium">
          <bdi>{change.service}</bdi>
        </span>
        <code className="min-w-0 truncate font-mono text-xs text-fg-muted" title={change.image}>
          <bdi>{change.image}</bdi>
        </code>
      </span>
      <span className="flex flex-wrap items-center gap-x-1 font-mono text-xs">
        <Digest change={change} side="before" />
        <ChangeArrow />
        <Digest change={change} side="after" />
      </span>
      <span className="ml-auto text-xs">
        <ChangeWord change={change} />
      </span>
    </li>
  );
}

function Digest({ change, side }: { change: ServiceChange; side: "before" | "after" }) {
  const t = useT();
  const digest = side === "before" ? change.from : change.to;
  return (
    <span className="inline-flex items-center">
      <DigestText digest={digest} />
      {digest !== null && (
        <CopyButton
          value={digest}
          label={t("runs.changes.copy", { service: change.service, side: t(`runs.changes.side.${side}`) })}
        />
      )}
    </span>
  );
}

function CommitLine({ commit }: { commit: NonNullable<FinishedRun["commit"]> }) {
  const t = useT();
  return (
    <div className="flex flex-col gap-1 border-t border-line px-4 py-2.5 text-sm">
      <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span className="text-xs font-medium text-fg-muted">{t("runs.commit.title")}</span>
        <span className="font-mono text-xs">
          <DigestChange change={commit} />
        </span>
        {commit.from !== null && commit.from === commit.to && (
          <span className="text-xs text-fg-muted">{t("runs.commit.same")}</span>
        )}
      </p>
      {commit.message && (
        <p className="break-words">
          <bdi>{commit.message}</bdi>
        </p>
      )}
    </div>
  );
}
