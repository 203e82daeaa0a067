import { afterEach, describe, expect, it } from "vitest";
import type { Lang } from "./i18n.ts";
import {
  formatDate,
  formatDateAndTime,
  formatDayOfMonth,
  formatInteger,
  formatPercent,
  formatRelativeTime,
  formatTimeOfDay,
  type RelativeUnit,
} from "./intl.ts";

const LANGS: Lang[] = ["en", "es"];
const originalZone = process.env.TZ;
afterEach(() => {
  if (originalZone === undefined) delete process.env.TZ;
  else process.env.TZ = originalZone;
});

/** Every month, hours around midnight and noon, one- and two-digit days and minutes, a leap day. */
function sampleDates(): Date[] {
  const dates: Date[] = [new Date(Date.UTC(2028, 1, 29, 23, 59, 59))];
  for (let month = 0; month < 12; month++) {
    for (const [day, hour, minute, second] of [
      [1, 0, 0, 0],
      [9, 0, 5, 9],
      [15, 11, 59, 30],
      [28, 12, 0, 1],
      [28, 13, 7, 45],
      [3, 23, 30, 0],
    ]) {
      dates.push(new Date(2026, month, day, hour, minute, second));
    }
  }
  return dates;
}

describe("the dashboard's formats, written without Intl", () => {
  it.each(LANGS)("give what Intl gives for dates and times (%s), in several time zones", (lang) => {
    for (const zone of ["UTC", "America/New_York", "Europe/Madrid", "Asia/Kolkata"]) {
      process.env.TZ = zone;
      const dateTime = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
      const withSeconds = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "medium" });
      const time = new Intl.DateTimeFormat(lang, { timeStyle: "short" });
      const day = new Intl.DateTimeFormat(lang, { dateStyle: "medium" });
      for (const date of sampleDates()) {
        expect(formatDate(lang, date)).toBe(day.format(date));
        expect(formatDateAndTime(lang, date), `${zone} ${date.toISOString()}`).toBe(dateTime.format(date));
        expect(formatDateAndTime(lang, date, { seconds: true })).toBe(withSeconds.format(date));
        expect(formatTimeOfDay(lang, date)).toBe(time.format(date));
      }
    }
  });

  it.each(LANGS)("give what Intl gives for a UTC day of the month (%s)", (lang) => {
    process.env.TZ = "America/Los_Angeles";
    const intl = new Intl.DateTimeFormat(lang, { day: "numeric", month: "short", timeZone: "UTC" });
    for (const date of sampleDates()) {
      const day = date.toISOString().slice(0, 10);
      expect(formatDayOfMonth(lang, day)).toBe(intl.format(new Date(`${day}T00:00:00Z`)));
    }
  });

  it.each(LANGS)("give what Intl gives for every success rate up to 400 deploys (%s)", (lang) => {
    const intl = new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 1 });
    const differing: string[] = [];
    for (let total = 1; total <= 400; total++) {
      for (let succeeded = 0; succeeded <= total; succeeded++) {
        const [ours, theirs] = [formatPercent(lang, succeeded / total), intl.format(succeeded / total)];
        if (ours !== theirs) differing.push(`${succeeded}/${total}: ${ours}, Intl ${theirs}`);
      }
    }
    expect(differing).toEqual([]);
  });

  it.each(LANGS)("give what Intl gives for relative times and whole numbers (%s)", (lang) => {
    const intl = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
    const numbers = new Intl.NumberFormat(lang);
    const units: RelativeUnit[] = ["second", "minute", "hour", "day"];
    const values = [0, 1, 2, 3, 12, 59, 999, 1000, 1234, 9999, 10_000, 12_345, 1_234_567];
    for (const unit of units) {
      for (const value of values.flatMap((value) => [value, -value])) {
        expect(formatRelativeTime(lang, value, unit), `${value} ${unit}`).toBe(intl.format(value, unit));
      }
    }
    for (const value of values) expect(formatInteger(lang, value)).toBe(numbers.format(value));
  });
});
