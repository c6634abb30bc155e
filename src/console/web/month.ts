// The month view's arithmetic: which days of a zone a month grid shows, and which list filter reaches them.
import { dayKey, instantNear, wallClock } from './format.js';

/** A month as `YYYY-MM`, the form kept in the address. */
export type MonthKey = string;

/** One day of the grid: its `YYYY-MM-DD` key and its number in the month. */
export interface GridDay {
  key: string;
  day: number;
}

export interface MonthGrid {
  year: number;
  /** 1–12. */
  month: number;
  /** Weeks of seven days, Monday first; days outside the month are null. */
  weeks: (GridDay | null)[][];
  /** The first instant of the month in the zone. */
  first: number;
  /** The first instant of the next month: events starting at or after it are not in this one. */
  end: number;
  /**
   * The `start_date` filter that reaches every event starting in this month: two days early, since the
   * API reads the date in the campus zone, which may be up to 26 hours from the zone shown.
   */
  startDate: string;
}

/** The month of `key` (`YYYY-MM`) in `zone`, or the month of `now` there when the key is missing or malformed. */
export function monthGrid(key: string | null, zone: string, now: number = Date.now()): MonthGrid {
  const match = key === null ? null : /^(\d{4})-(\d{2})$/.exec(key);
  const today = wallClock(zone, now);
  const valid = match !== null && Number(match[2]) >= 1 && Number(match[2]) <= 12;
  const year = valid ? Number(match![1]) : today.year;
  const month = valid ? Number(match![2]) : today.month;
  const length = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const weekday = (new Date(Date.UTC(year, month - 1, 1)).getUTCDay() + 6) % 7;
  const cells: (GridDay | null)[] = new Array<GridDay | null>(weekday).fill(null);
  for (let day = 1; day <= length; day++) cells.push({ key: dayKey({ year, month, day }), day });
  while (cells.length % 7 !== 0) cells.push(null);
  const weeks = Array.from({ length: cells.length / 7 }, (_, index) => cells.slice(index * 7, index * 7 + 7));
  const midnight = (y: number, m: number, d: number): number => instantNear(zone, { year: y, month: m, day: d, hour: 0, minute: 0 });
  const early = new Date(Date.UTC(year, month - 1, 1 - 2));
  return {
    year,
    month,
    weeks,
    first: midnight(year, month, 1),
    end: month === 12 ? midnight(year + 1, 1, 1) : midnight(year, month + 1, 1),
    startDate: early.toISOString().slice(0, 10),
  };
}

/** `YYYY-MM` of the grid's month. */
export function monthKey(grid: Pick<MonthGrid, 'year' | 'month'>): MonthKey {
  return dayKey({ ...grid, day: 1 }).slice(0, 7);
}

/** The month `delta` months from the grid's. */
export function shiftMonth(grid: Pick<MonthGrid, 'year' | 'month'>, delta: number): MonthKey {
  const index = grid.year * 12 + grid.month - 1 + delta;
  return monthKey({ year: Math.floor(index / 12), month: (index % 12) + 1 });
}

/** The `YYYY-MM-DD` of an instant in `zone`, to place it on the grid. */
export function dayOf(iso: string, zone: string): string {
  return dayKey(wallClock(zone, Date.parse(iso)));
}
