import { dateTimeFormat, relativeTimeFormat } from "../../lib/intl.ts";
import { useI18n } from "../I18nProvider.tsx";

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1_000],
];

/** "3 minutes ago" / "hace 3 minutos", with the exact date and time on hover. */
export function RelativeTime({ date, now = Date.now() }: { date: Date; now?: number }) {
  const { lang } = useI18n();
  const elapsed = date.getTime() - now;
  const [unit, size] = UNITS.find(([, ms]) => Math.abs(elapsed) >= ms) ?? ["second", 1_000];
  const relative = relativeTimeFormat(lang, { numeric: "auto" }).format(Math.round(elapsed / size), unit);
  const exact = dateTimeFormat(lang, { dateStyle: "medium", timeStyle: "medium" }).format(date);
  return (
    <time dateTime={date.toISOString()} title={exact} className="whitespace-nowrap">
      {relative}
    </time>
  );
}
