import { useId } from "react";
import { formatDayOfMonth } from "../../lib/intl.ts";
import { useI18n } from "../I18nProvider.tsx";

export interface DayTally {
  /** YYYY-MM-DD, a UTC day. */
  date: string;
  total: number;
  succeeded: number;
  failed: number;
  /** Of those that succeeded, how many did not stay up. */
  unstable: number;
}

const SLOT = 10;
const BAR = 7;
const HEIGHT = 100;
/** Days without deploys still show their slot, as a sliver on the baseline. */
const EMPTY_DAY_HEIGHT = 1.5;

export function useDayFormat(): (date: string) => string {
  const { lang } = useI18n();
  return (date) => formatDayOfMonth(lang, date);
}

/**
 * Successes (green; amber for those that did not stay up) and failures (red, stacked on top) per day,
 * in plain SVG. The figure has a title
 * and a text summary for screen readers; each day names its figures on hover; the caller also offers
 * the figures as a table.
 */
export function DeployChart({
  days,
  title,
  summary,
}: {
  days: readonly DayTally[];
  title: string;
  summary: string;
}) {
  const { t } = useI18n();
  const titleId = useId();
  const descriptionId = useId();
  const formatDay = useDayFormat();
  const max = Math.max(1, ...days.map((day) => day.total));
  const scale = (count: number) => (count / max) * (HEIGHT - 4);
  const first = days[0];
  const middle = days[Math.floor(days.length / 2)];

  return (
    <div>
      <div className="relative">
        <span className="absolute -top-0.5 left-0 text-[0.6875rem] tabular-nums text-fg-muted">{max}</span>
        <svg
          role="img"
          aria-labelledby={`${titleId} ${descriptionId}`}
          viewBox={`0 0 ${days.length * SLOT} ${HEIGHT}`}
          preserveAspectRatio="none"
          className="h-36 w-full border-b border-line pl-5"
        >
          <title id={titleId}>{title}</title>
          <desc id={descriptionId}>{summary}</desc>
          <line
            x1="0"
            x2={days.length * SLOT}
            y1="4"
            y2="4"
            className="stroke-line"
            strokeDasharray="2 2"
            strokeWidth="0.5"
          />
          {days.map((day, index) => {
            const x = index * SLOT + (SLOT - BAR) / 2;
            const stable = scale(day.succeeded - day.unstable);
            const unstable = scale(day.unstable);
            const succeeded = stable + unstable;
            const failed = scale(day.failed);
            return (
              <g key={day.date}>
                <title>
                  {day.unstable > 0
                    ? t("overview.chart.dayUnstable", {
                        day: formatDay(day.date),
                        succeeded: day.succeeded,
                        unstable: day.unstable,
                        failed: day.failed,
                      })
                    : t("overview.chart.day", {
                        day: formatDay(day.date),
                        succeeded: day.succeeded,
                        failed: day.failed,
                      })}
                </title>
                <rect x={index * SLOT} y="0" width={SLOT} height={HEIGHT} fill="transparent" />
                {day.total === 0 && (
                  <rect
                    x={x}
                    y={HEIGHT - EMPTY_DAY_HEIGHT}
                    width={BAR}
                    height={EMPTY_DAY_HEIGHT}
                    className="fill-line"
                  />
                )}
                {day.succeeded > day.unstable && (
                  <rect x={x} y={HEIGHT - stable} width={BAR} height={stable} className="fill-success" />
                )}
                {day.unstable > 0 && (
                  <rect x={x} y={HEIGHT - succeeded} width={BAR} height={unstable} className="fill-warning" />
                )}
                {day.failed > 0 && (
                  <rect
                    x={x}
                    y={HEIGHT - succeeded - failed}
                    width={BAR}
                    height={failed}
                    className="fill-danger"
                  />
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <div aria-hidden="true" className="mt-1 flex justify-between pl-5 text-[0.6875rem] text-fg-muted">
        <span>{first && formatDay(first.date)}</span>
        <span>{middle && formatDay(middle.date)}</span>
        <span>{t("overview.chart.today")}</span>
      </div>
    </div>
  );
}
