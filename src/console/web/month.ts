// The month view's arithmetic: which local days a month grid shows, and which UTC filter fetches them.
import { localDayKey, utcDayKey } from './format.js';

/** A month as `YYYY-MM`, the form kept in the address. */
export type MonthKey = string;

export interface MonthGrid {
  /** The first of the month, local midnight. */
  first: Date;
  /** Weeks of seven local days, Monday first; days outside the month are null. */
  weeks: (Date | null)[][];
  /** The `start_date` filter that reaches every event starting in this local month (a day early: UTC may lag local time). */
  startDate: string;
  /** Local midnight after the month's last day: events starting at or after it are not in the month. */
  end: Date;
}

/** The month of `key` (`YYYY-MM`), or of `today` when the key is missing or malformed. */
export function monthGrid(key: string | null, today: Date = new Date()): MonthGrid {
  const match = key === null ? null : /^(\d{4})-(\d{2})$/.exec(key);
  const year = match ? Number(match[1]) : today.getFullYear();
  const month = match && Number(match[2]) >= 1 && Number(match[2]) <= 12 ? Number(match[2]) - 1 : today.getMonth();
  const first = new Date(year, month, 1);
  const end = new Date(year, month + 1, 1);
  const weeks: (Date | null)[][] = [];
  let week: (Date | null)[] = new Array<Date | null>((first.getDay() + 6) % 7).fill(null);
  for (let day = 1; day <= new Date(year, month + 1, 0).getDate(); day++) {
    week.push(new Date(year, month, day));
    if (week.length === 7) {
      weeks.push(week);
      week = [];
    }
  }
  if (week.length > 0) weeks.push([...week, ...new Array<Date | null>(7 - week.length).fill(null)]);
  const dayBefore = new Date(first.getTime() - 24 * 3600 * 1000);
  return { first, weeks, startDate: utcDayKey(dayBefore), end };
}

/** `YYYY-MM` of a local date. */
export function monthKey(date: Date): MonthKey {
  return localDayKey(date).slice(0, 7);
}

/** The month `delta` months from `first`. */
export function shiftMonth(first: Date, delta: number): MonthKey {
  return monthKey(new Date(first.getFullYear(), first.getMonth() + delta, 1));
}
