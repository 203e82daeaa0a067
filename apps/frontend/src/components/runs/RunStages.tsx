import type { UseQueryResult } from "@tanstack/react-query";
import { useState } from "react";
import { cx } from "../../lib/cx.ts";
import { useT } from "../I18nProvider.tsx";
import { ChevronDownIcon } from "../icons.tsx";
import { StatusMark } from "../ui/Badge.tsx";
import { Card } from "../ui/Card.tsx";
import { Code } from "../ui/Code.tsx";
import { CodeBlock } from "../ui/CodeBlock.tsx";
import { Notice } from "../ui/Notice.tsx";
import { QueryView } from "../ui/QueryView.tsx";
import { SkeletonLines } from "../ui/Skeleton.tsx";
import { Spinner } from "../ui/Spinner.tsx";
import { formatDuration } from "../ui/useNow.ts";
import type { RunStatus } from "./RunPage.tsx";
import { firstFailedStage, type RunStage } from "./run-model.ts";

interface RunLogs {
  stages: RunStage[];
  truncated: boolean;
}

/** Every Komodo stage of the run with its output, in the order they ran; the failed one open. */
export function RunStages({ run, logs }: { run: RunStatus; logs: UseQueryResult<RunLogs> }) {
  const t = useT();
  return (
    <Card title={t("runs.stages.title")} flush>
      <QueryView
        query={logs}
        placeholder={<SkeletonLines label={t("runs.loading")} />}
        errorTitle={t("runs.loadFailed")}
        padded
      >
        {({ stages, truncated }) => {
          const failed = firstFailedStage(stages);
          return (
            <div className="flex flex-col">
              {truncated && <Notice tone="warning" title={t("runs.stages.truncated")} className="m-3 mb-0" />}
              {stages.length > 0 && (
                <ol className="divide-y divide-line">
                  {stages.map((stage, index) => (
                    <StageItem
                      // Stages only ever come after those known: their place is who they are.
                      // biome-ignore lint/suspicious/noArrayIndexKey: see above
                      key={index}
                      stage={stage}
                      initiallyOpen={index === failed}
                    />
                  ))}
                </ol>
              )}
              {run.status === "running" ? (
                <p
                  role="status"
                  className={cx(
                    "flex items-center gap-2 px-4 py-3 text-sm text-fg-muted",
                    stages.length > 0 && "border-t border-line",
                  )}
                >
                  <Spinner className="size-3.5" />
                  {stages.length === 0 ? t("runs.stages.waiting") : t("runs.stages.more")}
                </p>
              ) : (
                stages.length === 0 && (
                  <p className="px-4 py-3 text-sm text-fg-muted">{t("runs.stages.none")}</p>
                )
              )}
            </div>
          );
        }}
      </QueryView>
    </Card>
  );
}

/**
 * One stage, collapsible: its result, name and duration; open, its command and output. stderr is
 * not an error by itself (docker compose writes its progress there): only `success` says so.
 */
function StageItem({ stage, initiallyOpen }: { stage: RunStage; initiallyOpen: boolean }) {
  const t = useT();
  const [open, setOpen] = useState(initiallyOpen);
  const took =
    stage.startedAt && stage.endedAt
      ? formatDuration(stage.endedAt.getTime() - stage.startedAt.getTime())
      : null;
  const streams = [
    { name: t("runs.stage.stdout"), text: stage.stdout },
    { name: t("runs.stage.stderr"), text: stage.stderr },
  ].filter((stream) => stream.text !== "");
  return (
    <li>
      <details open={open} onToggle={(event) => setOpen(event.currentTarget.open)} className="group">
        <summary className="flex cursor-pointer list-none items-center gap-3 px-4 py-2.5 hover:bg-surface-muted/60 [&::-webkit-details-marker]:hidden">
          <ChevronDownIcon
            aria-hidden="true"
            className="size-4 shrink-0 -rotate-90 text-fg-muted transition-transform group-open:rotate-0"
          />
          <span className="min-w-0 flex-1 truncate font-medium">
            <bdi>{stage.stage}</bdi>
          </span>
          <StatusMark
            tone={stage.success ? "success" : "danger"}
            label={stage.success ? t("runs.stage.succeeded") : t("runs.stage.failed")}
          />
          {took && <span className="shrink-0 font-mono text-xs tabular-nums text-fg-muted">{took}</span>}
        </summary>
        <div className="flex flex-col gap-3 px-4 pt-1 pb-4">
          {stage.command && (
            <p className="flex min-w-0 items-center gap-2 text-xs">
              <span className="shrink-0 text-fg-muted">{t("runs.stage.command")}</span>
              <Code
                value={stage.command}
                truncate
                copyable
                copyLabel={t("runs.stage.copy", { stream: t("runs.stage.command"), stage: stage.stage })}
                className="min-w-0"
              />
            </p>
          )}
          {streams.length === 0 ? (
            <p className="text-xs text-fg-muted">{t("runs.stage.empty")}</p>
          ) : (
            streams.map((stream) => (
              <CodeBlock
                key={stream.name}
                code={stream.text}
                title={stream.name}
                copyLabel={t("runs.stage.copy", { stream: stream.name, stage: stage.stage })}
                regionLabel={t("runs.stage.streamOf", { stream: stream.name, stage: stage.stage })}
                output
              />
            ))
          )}
        </div>
      </details>
    </li>
  );
}
