import { cx } from "../../lib/cx.ts";
import type { PlainMessageKey } from "../../lib/i18n.ts";
import { useI18n, useT } from "../I18nProvider.tsx";
import type { DeployAction } from "../stacks/model.ts";
import { StatusMark } from "../ui/Badge.tsx";
import { relativeTime } from "../ui/RelativeTime.tsx";
import {
  changeKind,
  OUTCOME_TONES,
  type RunOutcome,
  type RunSettle,
  runHref,
  type ServiceChange,
  shortDigest,
  summarizeChanges,
} from "./run-model.ts";

/** The short word of each outcome where room is short (lists); the run's page says it whole. */
const SHORT_LABELS: Record<RunOutcome, PlainMessageKey> = {
  running: "runs.outcome.running",
  failed: "runs.outcome.failed",
  unstable: "runs.outcome.unstable",
  watching: "runs.settle.watchingMark",
  succeeded: "runs.outcome.succeeded",
};

/**
 * A deploy's outcome as mark and word, linking to its run: unstable (amber) and watching (blue)
 * apart from failed (red). The link's name says which run it opens.
 */
export function OutcomeLink({
  id,
  outcome,
  action,
  stack,
  at,
  now,
}: {
  id: string;
  outcome: RunOutcome;
  action: DeployAction;
  stack: string;
  /** When it finished (or started, while it runs). */
  at: Date;
  now: number;
}) {
  const { t, lang } = useI18n();
  const label = t(SHORT_LABELS[outcome]);
  return (
    <a
      href={runHref(id)}
      aria-label={t("runs.openLabel", {
        outcome: label,
        what: t(`runs.what.${action}`),
        stack,
        when: relativeTime(lang, at, Math.max(now, at.getTime())),
      })}
      title={outcome === "watching" ? t("runs.outcome.watching") : undefined}
      className="inline-flex max-w-full rounded-sm underline-offset-2 hover:underline"
    >
      <StatusMark tone={OUTCOME_TONES[outcome]} label={label} live={outcome === "running"} />
    </a>
  );
}

/** A digest in short (whole on hover), or "unknown" where Komodo did not say. */
export function DigestText({ digest }: { digest: string | null }) {
  const t = useT();
  if (digest === null)
    return (
      <span className="italic text-fg-muted" title={t("runs.changes.unknownHint")}>
        {t("runs.changes.unknown")}
      </span>
    );
  return (
    <code className="font-mono" title={digest}>
      {shortDigest(digest)}
    </code>
  );
}

/** The arrow between before and after, read as "to". */
export function ChangeArrow() {
  const t = useT();
  return (
    <>
      <span aria-hidden="true" className="text-fg-muted">
        →
      </span>
      <span className="sr-only">{t("runs.changes.to")}</span>
    </>
  );
}

/** "3f2a9c1d… → 9c1d4e5f…": a digest (or a commit) before and after. */
export function DigestChange({ change }: { change: Pick<ServiceChange, "from" | "to"> }) {
  return (
    <span className="inline-flex items-center gap-1 whitespace-nowrap">
      <DigestText digest={change.from} />
      <ChangeArrow />
      <DigestText digest={change.to} />
    </span>
  );
}

const changeLine = (change: ServiceChange, unknown: string) =>
  `${change.service}: ${change.image} ${change.from ?? unknown} → ${change.to ?? unknown}`;

/**
 * What a deploy changed, in one short line for a list row: "web: nginx:1.27 3f2a9c1d… → 9c1d4e5f…"
 * and how many more, or "No change"; nothing where nothing was recorded. Every change on hover.
 */
export function ChangesInline({
  changes,
  className,
}: {
  changes: readonly ServiceChange[];
  className?: string;
}) {
  const t = useT();
  const summary = summarizeChanges(changes);
  if (summary.kind === "not-recorded") return null;
  if (summary.kind === "no-change")
    return (
      <span className={cx("block text-xs text-fg-muted", className)} title={t("runs.changes.noChangeHint")}>
        {t("runs.changes.noChange")}
      </span>
    );
  const [first, ...others] = summary.shown;
  if (!first) return null;
  const unknown = t("runs.changes.unknown");
  return (
    <span
      className={cx("flex min-w-0 items-center gap-1.5 text-xs", className)}
      title={summary.shown.map((change) => changeLine(change, unknown)).join("\n")}
    >
      <span className="shrink-0 text-fg-muted">
        <bdi>{first.service}</bdi>:
      </span>
      <code className="min-w-0 truncate font-mono">
        <bdi>{first.image}</bdi>
      </code>
      <span className="shrink-0">
        <DigestChange change={first} />
      </span>
      {others.length > 0 && (
        <span className="shrink-0 text-fg-muted">{t("runs.changes.more", { count: others.length })}</span>
      )}
    </span>
  );
}

/** Why a deploy that succeeded did not stay up, in one line for a list row; nothing otherwise. */
export function UnstableReason({ settle, className }: { settle: RunSettle | null; className?: string }) {
  const t = useT();
  if (settle?.state !== "unstable") return null;
  const text = settle.reason
    ? t("runs.settle.unstable", { reason: settle.reason })
    : t("runs.settle.unstableNoReason");
  return (
    <span className={cx("block truncate text-xs text-warning-text", className)} title={text}>
      <bdi>{text}</bdi>
    </span>
  );
}

/** Whether a change changed anything, as a word: for the run's own list of services. */
export function ChangeWord({ change }: { change: ServiceChange }) {
  const t = useT();
  const kind = changeKind(change);
  if (kind === "changed") return <span className="font-medium">{t("runs.changes.changed")}</span>;
  if (kind === "same") return <span className="text-fg-muted">{t("runs.changes.same")}</span>;
  return <span className="italic text-fg-muted">{t("runs.changes.unknown")}</span>;
}
