// The UTC month of each live event's start, as slots per month: how a date window's `q` matches are counted by bitmaps.
import { type Posting, postingAdd, postingRemove } from './search-postings.js';

/** The UTC month of an instant, as `year * 12 + month - 1` (by arithmetic on days: no Date per call). */
export function monthOf(ms: number): number {
  // Howard Hinnant's civil_from_days, with years starting in March.
  const days = Math.floor(ms / 86_400_000) + 719_468;
  const era = Math.floor(days / 146_097);
  const dayOfEra = days - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
  // January and February (marchMonth 10, 11) are months 0, 1 of the next year: the same count of months.
  return (yearOfEra + era * 400) * 12 + marchMonth + 2;
}

/** The first instant of a month given as monthOf gives it. */
export function monthStart(month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(Math.floor(month / 12), month % 12, 1);
  return date.getTime();
}

/** The slots of the events starting in each UTC month (`year * 12 + month - 1`). */
export class MonthPostings {
  readonly #months = new Map<number, Posting>();

  /** The slots of the events starting in `month` (see monthOf). */
  get(month: number): Posting | undefined {
    return this.#months.get(month);
  }

  /** The months that hold events, ascending. */
  months(): number[] {
    return [...this.#months.keys()].sort((a, b) => a - b);
  }

  /** Moves `slot` from the month of `fromMs` to that of `toMs` (undefined: none), `capacity` slots in use. */
  move(slot: number, fromMs: number | undefined, toMs: number | undefined, capacity: number): void {
    const from = fromMs === undefined ? undefined : monthOf(fromMs);
    const to = toMs === undefined ? undefined : monthOf(toMs);
    if (from === to) return;
    if (from !== undefined) {
      const left = postingRemove(this.#months.get(from)!, slot, capacity);
      if (left === undefined) this.#months.delete(from);
      else this.#months.set(from, left);
    }
    if (to === undefined) return;
    // A bitmap or array grows in place: the month is set again only when its posting is new or changes form.
    const posting = this.#months.get(to);
    const added = postingAdd(posting, slot, capacity);
    if (added !== posting) this.#months.set(to, added);
  }
}
