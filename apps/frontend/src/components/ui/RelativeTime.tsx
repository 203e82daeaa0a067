import type { Lang } from "../../lib/i18n.ts";
import { formatDateAndTime, formatRelativeTime, type RelativeUnit } from "../../lib/intl.ts";
import { useI18n } from "../I18nProvider.tsx";

const UNITS: [RelativeUnit, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1_000],
];

/** "3 minutes ago" / "hace 3 minutos": `date` as seen from `now`, in its largest whole unit. */
export function relativeTime(lang: Lang, date: Date, now: number): string {
  const elapsed = date.getTime() - now;
  const [unit, size] = UNITS.find(([, ms]) => Math.abs(elapsed) >= ms) ?? ["second", 1_000];
  return formatRelativeTime(lang, Math.round(elapsed / size), unit);
}

/** "3 minutes ago" / "hace 3 minutos", with the exact date and time on hover. */
export function RelativeTime({ date, now = Date.now() }: { date: Date; now?: number }) {
  const { lang } = useI18n();
  const exact = formatDateAndTime(lang, date, { seconds: true });
  return (
    <time dateTime={date.toISOString()} title={exact} className="whitespace-nowrap">
      {relativeTime(lang, date, now)}
    </time>
  );
}
