/**
 * The dashboard's dates, times, percentages and relative times, in English and Spanish, written out
 * here instead of through Intl. A page's first Intl object of any kind loads ICU's data: 40–100 ms in
 * one task in Chromium here, 200–400 ms of blocking time on Lighthouse's phone, and the overview and
 * a stack's page would pay it while hydrating. Each function gives exactly what Intl gives for the
 * same options (`intl.test.ts` compares them); the server renders with the same functions, so
 * hydration never sees a difference either. (The invitation's long expiry date, shown once after a
 * click, still uses Intl.)
 */
import type { Lang } from "./i18n.ts";

export type RelativeUnit = "day" | "hour" | "minute" | "second";

const MONTHS: Record<Lang, readonly string[]> = {
  en: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
  es: ["ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"],
};

const UNIT_NAMES: Record<Lang, Record<RelativeUnit, [one: string, other: string]>> = {
  en: {
    day: ["day", "days"],
    hour: ["hour", "hours"],
    minute: ["minute", "minutes"],
    second: ["second", "seconds"],
  },
  es: {
    day: ["día", "días"],
    hour: ["hora", "horas"],
    minute: ["minuto", "minutos"],
    second: ["segundo", "segundos"],
  },
};

/** What `numeric: "auto"` says instead of a number, by unit and value. */
const SAID_IN_WORDS: Record<Lang, Partial<Record<RelativeUnit, Record<number, string>>>> = {
  en: {
    second: { 0: "now" },
    minute: { 0: "this minute" },
    hour: { 0: "this hour" },
    day: { [-1]: "yesterday", 0: "today", 1: "tomorrow" },
  },
  es: {
    second: { 0: "ahora" },
    minute: { 0: "este minuto" },
    hour: { 0: "esta hora" },
    day: { [-2]: "anteayer", [-1]: "ayer", 0: "hoy", 1: "mañana", 2: "pasado mañana" },
  },
};

const pad2 = (value: number) => String(value).padStart(2, "0");

/** A whole number as `Intl.NumberFormat` writes it: "12,345" in English; "1234" and "12.345" in Spanish. */
export function formatInteger(lang: Lang, value: number): string {
  const digits = String(Math.abs(value));
  const grouped =
    lang === "es" && digits.length <= 4
      ? digits
      : digits.replace(/\B(?=(\d{3})+$)/g, lang === "es" ? "." : ",");
  return value < 0 ? `-${grouped}` : grouped;
}

/** `Intl.RelativeTimeFormat(lang, { numeric: "auto" }).format(value, unit)` for a whole `value`. */
export function formatRelativeTime(lang: Lang, value: number, unit: RelativeUnit): string {
  const inWords = SAID_IN_WORDS[lang][unit]?.[value];
  if (inWords !== undefined) return inWords;
  const amount = Math.abs(value);
  const [one, other] = UNIT_NAMES[lang][unit];
  const counted = `${formatInteger(lang, amount)} ${amount === 1 ? one : other}`;
  if (lang === "es") return value < 0 ? `hace ${counted}` : `dentro de ${counted}`;
  return value < 0 ? `${counted} ago` : `in ${counted}`;
}

/** A share from 0 to 1 as a percentage with at most one decimal: "97.5%", "97,5 %". */
export function formatPercent(lang: Lang, share: number): string {
  const tenths = tenthsOfPercent(share);
  const integer = formatInteger(lang, Math.floor(tenths / 10));
  const figure = tenths % 10 === 0 ? integer : `${integer}${lang === "es" ? "," : "."}${tenths % 10}`;
  return lang === "es" ? `${figure}\u00a0%` : `${figure}%`;
}

/**
 * Rounded as Intl rounds: the shortest decimal that reads back as the number (3/80 is 0.0375), half
 * away from zero. Arithmetic on the double first would round 0.037499999… down.
 */
function tenthsOfPercent(share: number): number {
  const text = String(share);
  if (text.includes("e")) return Math.round(share * 1000);
  const [whole, fraction = ""] = text.split(".");
  const digits = fraction.padEnd(4, "0");
  return Number(whole) * 1000 + Number(digits.slice(0, 3)) + (Number(digits[3]) >= 5 ? 1 : 0);
}

/** A UTC day (YYYY-MM-DD) as its day and short month: "Sep 7", "7 sept". */
export function formatDayOfMonth(lang: Lang, day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  const month = MONTHS[lang][date.getUTCMonth()];
  return lang === "es" ? `${date.getUTCDate()} ${month}` : `${month} ${date.getUTCDate()}`;
}

/** The local time of day, `timeStyle` short or (with seconds) medium: "1:07 PM", "13:07". */
export function formatTimeOfDay(lang: Lang, date: Date, { seconds = false } = {}): string {
  const hours = date.getHours();
  const rest = `${pad2(date.getMinutes())}${seconds ? `:${pad2(date.getSeconds())}` : ""}`;
  if (lang === "es") return `${hours}:${rest}`;
  return `${hours % 12 === 0 ? 12 : hours % 12}:${rest} ${hours < 12 ? "AM" : "PM"}`;
}

/** The local date, `dateStyle` medium: "Sep 7, 2026", "7 sept 2026". */
export function formatDate(lang: Lang, date: Date): string {
  const month = MONTHS[lang][date.getMonth()];
  return lang === "es"
    ? `${date.getDate()} ${month} ${date.getFullYear()}`
    : `${month} ${date.getDate()}, ${date.getFullYear()}`;
}

/** The local date, `dateStyle` medium, and time of day: "Sep 7, 2026, 1:07 PM", "7 sept 2026, 13:07". */
export function formatDateAndTime(lang: Lang, date: Date, { seconds = false } = {}): string {
  return `${formatDate(lang, date)}, ${formatTimeOfDay(lang, date, { seconds })}`;
}
