import { cx } from "../../lib/cx.ts";
import type { Translate } from "../../lib/i18n.ts";
import { formatDateAndTime } from "../../lib/intl.ts";
import { useI18n } from "../I18nProvider.tsx";
import { Card } from "../ui/Card.tsx";
import { type Tone, toneClasses } from "../ui/tone.ts";
import { formatDuration, useNow } from "../ui/useNow.ts";
import type { RunStatus } from "./RunPage.tsx";
import type { FinishedRun } from "./run-model.ts";

interface Verdict {
  tone: Tone;
  /** What it says, read out when it changes. */
  text: string;
  /** While watched: the time left, shown beside it but not read out at every tick. */
  left?: string;
  /** The moment the watch ends or ended, shown under the verdict. */
  until?: Date;
}

/**
 * Whether the run's services stayed up once it succeeded: watched (with the time left), stable,
 * unstable with the reason, or not watched and why.
 */
export function RunSettle({ run }: { run: RunStatus }) {
  const { t, lang } = useI18n();
  const watching = run.status === "finished" && run.settle?.state === "watching";
  const now = useNow(watching ? 1_000 : 60_000);
  const verdict = verdictOf(run, now, t);
  const { dot, text } = toneClasses[verdict.tone];
  return (
    <Card title={t("runs.settle.title")}>
      <div className="flex flex-col gap-1 text-sm">
        <p className="flex items-start gap-2">
          <span
            aria-hidden="true"
            className={cx(
              "mt-1.5 size-2 shrink-0 rounded-full",
              dot,
              verdict.left !== undefined && "motion-safe:animate-pulse-dot",
            )}
          />
          <span className={cx("min-w-0 break-words font-medium", text)}>
            {/* The verdict may arrive while the page is open: read politely. */}
            <span role="status">
              <bdi>{verdict.text}</bdi>
            </span>
            {verdict.left !== undefined && (
              <>
                <span aria-hidden="true"> · </span>
                <span className="tabular-nums">{verdict.left}</span>
              </>
            )}
          </span>
        </p>
        {verdict.until && (
          <p className="pl-4 text-xs text-fg-muted">
            <time dateTime={verdict.until.toISOString()}>
              {formatDateAndTime(lang, verdict.until, { seconds: true })}
            </time>
          </p>
        )}
      </div>
    </Card>
  );
}

function verdictOf(run: RunStatus, now: number, t: Translate): Verdict {
  if (run.status === "running") {
    return run.action === "pull"
      ? { tone: "neutral", text: t("runs.settle.skippedPull") }
      : { tone: "neutral", text: t("runs.settle.pending") };
  }
  const { settle } = run;
  if (!settle) return { tone: "neutral", text: t("runs.settle.notRecorded") };
  const until = settle.until ?? undefined;
  switch (settle.state) {
    case "watching": {
      const left = until ? until.getTime() - now : 0;
      return {
        tone: "progress",
        until,
        text: t("runs.settle.watching"),
        left: left > 0 ? t("runs.settle.left", { left: formatDuration(left) }) : t("runs.settle.due"),
      };
    }
    case "stable":
      return {
        tone: "success",
        until,
        text: until
          ? t("runs.settle.stableFor", {
              duration: formatDuration(until.getTime() - run.finishedAt.getTime()),
            })
          : t("runs.settle.stable"),
      };
    case "unstable":
      return {
        tone: "warning",
        until,
        text: settle.reason
          ? t("runs.settle.unstable", { reason: settle.reason })
          : t("runs.settle.unstableNoReason"),
      };
    case "skipped":
      return { tone: "neutral", text: skippedText(run, t) };
  }
}

/** Why a run was not watched, in the page's language where the reason is one Stackgate knows. */
function skippedText(run: FinishedRun, t: Translate): string {
  if (run.action === "pull") return t("runs.settle.skippedPull");
  if (!run.success) return t("runs.settle.skippedFailed");
  return t("runs.settle.skipped", { reason: run.settle?.reason ?? "—" });
}
