// The proleptic Gregorian calendar's month lengths: what validating a date, reading a logged time and expanding a
// monthly series all need, in one place.

/** The days of `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
