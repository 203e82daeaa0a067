import { cx } from "../../lib/cx.ts";
import { formatPercent } from "../../lib/intl.ts";
import { useHistoryOverviewQuery } from "../../lib/queries.ts";
import { useI18n } from "../I18nProvider.tsx";
import { Card } from "../ui/Card.tsx";
import { QueryView } from "../ui/QueryView.tsx";
import { Skeleton } from "../ui/Skeleton.tsx";
import { Table, TableBody, TableHead, Td, Th, Tr } from "../ui/Table.tsx";
import { toneClasses } from "../ui/tone.ts";
import { useKeyboardScrollable } from "../ui/useKeyboardScrollable.ts";
import { type DayTally, DeployChart, useDayFormat } from "./DeployChart.tsx";

/** The last 30 days of deploys: success rate, successes and failures per day, the figures on demand. */
export function DeploysCard({ className }: { className?: string }) {
  const { t } = useI18n();
  const query = useHistoryOverviewQuery();
  return (
    <Card
      title={t("overview.deploys.title")}
      description={t("overview.deploys.description")}
      className={className}
    >
      <QueryView
        query={query}
        placeholder={<DeploysPlaceholder label={t("overview.deploys.loading")} />}
        errorTitle={t("overview.deploys.loadFailed")}
      >
        {(overview) => <DeploysSummary {...overview} />}
      </QueryView>
    </Card>
  );
}

/**
 * The summary's shape while it loads, block for block (rate and tallies wrapping as theirs do on a
 * phone, the chart, the figures' line), so nothing below moves when it arrives (layout shift 0.11).
 */
function DeploysPlaceholder({ label }: { label: string }) {
  return (
    <div role="status" className="flex flex-col gap-4">
      <span className="sr-only">{label}</span>
      <div className="flex flex-wrap items-end gap-x-6 gap-y-2">
        <Skeleton className="h-[3.25rem] w-24" />
        <Skeleton className="h-11 w-80 max-w-full" />
      </div>
      <div className="flex flex-col gap-1">
        <Skeleton className="h-36 w-full" />
        <Skeleton className="h-[0.98rem] w-full" />
      </div>
      <Skeleton className="h-4 w-40" />
    </div>
  );
}

interface DeploysSummaryProps {
  total: number;
  succeeded: number;
  failed: number;
  unstable: number;
  successRate: number | null;
  perDay: DayTally[];
}

function DeploysSummary({ total, succeeded, failed, unstable, successRate, perDay }: DeploysSummaryProps) {
  const { t, lang } = useI18n();
  const rate = successRate === null ? "—" : formatPercent(lang, successRate);
  const summary =
    total === 0
      ? t("overview.deploys.none")
      : [
          t("overview.deploys.summary", { total, succeeded, failed, rate }),
          ...(unstable > 0 ? [t("overview.deploys.summaryUnstable", { unstable })] : []),
        ].join(" ");
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end gap-x-6 gap-y-2">
        <div>
          <p className="text-3xl font-semibold tabular-nums">{rate}</p>
          <p className="text-xs text-fg-muted">{t("overview.deploys.rate")}</p>
        </div>
        <dl className="flex flex-wrap gap-x-5 gap-y-2 text-sm">
          <Tally tone="neutral" label={t("overview.deploys.total")} value={total} />
          <Tally tone="success" label={t("overview.deploys.succeeded")} value={succeeded} />
          <Tally tone="warning" label={t("overview.deploys.unstable")} value={unstable} />
          <Tally tone="danger" label={t("overview.deploys.failed")} value={failed} />
        </dl>
      </div>
      <DeployChart days={perDay} title={t("overview.chart.title")} summary={summary} />
      <DayFigures days={perDay} />
    </div>
  );
}

function Tally({
  tone,
  label,
  value,
}: {
  tone: "neutral" | "success" | "warning" | "danger";
  label: string;
  value: number;
}) {
  return (
    <div>
      <dt className="flex items-center gap-1.5 text-xs text-fg-muted">
        <span aria-hidden="true" className={cx("size-2 rounded-sm", toneClasses[tone].dot)} />
        {label}
      </dt>
      <dd className="text-lg font-semibold tabular-nums">{value}</dd>
    </div>
  );
}

/** The chart's figures as text: the days that had deploys, newest first. */
function DayFigures({ days }: { days: readonly DayTally[] }) {
  const { t } = useI18n();
  const formatDay = useDayFormat();
  const scrollable = useKeyboardScrollable<HTMLDivElement>(t("overview.chart.title"));
  const active = days.filter((day) => day.total > 0).reverse();
  if (active.length === 0) return null;
  return (
    <details className="text-sm">
      <summary className="cursor-pointer text-xs font-medium text-fg-muted hover:text-fg">
        {t("overview.chart.figures", { days: active.length })}
      </summary>
      <div
        ref={scrollable.ref}
        {...scrollable.props}
        className="mt-2 max-h-64 scroll-pt-8 overflow-auto rounded-md border border-line"
      >
        <Table aria-label={t("overview.chart.title")}>
          <TableHead>
            <tr>
              <Th>{t("overview.chart.date")}</Th>
              <Th numeric>{t("overview.deploys.succeeded")}</Th>
              <Th numeric>{t("overview.deploys.unstable")}</Th>
              <Th numeric>{t("overview.deploys.failed")}</Th>
            </tr>
          </TableHead>
          <TableBody>
            {active.map((day) => (
              <Tr key={day.date}>
                <Td>{formatDay(day.date)}</Td>
                <Td numeric>{day.succeeded}</Td>
                <Td numeric className={day.unstable > 0 ? "font-medium text-warning-text" : undefined}>
                  {day.unstable}
                </Td>
                <Td numeric className={day.failed > 0 ? "font-medium text-danger-text" : undefined}>
                  {day.failed}
                </Td>
              </Tr>
            ))}
          </TableBody>
        </Table>
      </div>
    </details>
  );
}
