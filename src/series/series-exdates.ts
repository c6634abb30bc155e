// Which exdates a series keeps when it is created or changed (API.md §11): a cancelled occurrence stays cancelled.
import { lenientInstantOf, ruleStarts, ScheduleProblem, wallOf } from './expand.js';
import type { RecurrenceRule } from './recurrence-rule.js';
import { MAX_TIME_MS, MIN_TIME_MS } from '../events/time.js';

const DAY_MS = 86_400_000;

/** The schedule an exdate belongs to: the first start and the zone its wall clock is read in. */
interface Anchor {
  startMs: number;
  zone: string;
}

/** The exdates of a series after a write. */
export interface ExdatePlan {
  /** Every exdate the series keeps, ascending: what it stores and shows. */
  kept: number[];
  /** Those the rule makes: the starts left out of its occurrences (the others are kept for a later schedule). */
  applied: number[];
}

/**
 * The exdates of a new schedule `to` (its rule `rule`), given the exdates the body `sent` (undefined when it sent none)
 * and, on a PUT, the series `before` with its stored exdates.
 * - Stored exdates that the body left as they were follow the first start when it moves, by the same wall-clock
 *   shift in the new zone: a lecture cancelled on the 11th at 10:00 stays cancelled when the series moves to 11:00.
 * - A stored exdate the new rule does not make is kept, not refused and not applied: a later change that makes that
 *   start again must not bring the cancelled occurrence back, and a series read and sent back as it is stays valid.
 * - An exdate the body adds must be a start the rule makes: else a ScheduleProblem naming its index in `sent`.
 * The rule's limits count only the starts that stay (ScheduleProblem from ruleStarts otherwise).
 */
export function planExdates(to: Anchor, rule: RecurrenceRule, sent: readonly number[] | undefined, before: (Anchor & { exdates: readonly number[] }) | undefined): ExdatePlan {
  const stored = before?.exdates ?? [];
  const unchanged = sent === undefined || sameSet(sent, stored);
  // Left as they were, they follow the start; one moved out of the years an event may have (a series moved by
  // millennia) can be no occurrence's start, and is dropped.
  const kept = unchanged
    ? before === undefined ? [] : stored.map((ms) => moved(ms, before, to)).filter((ms) => ms >= MIN_TIME_MS && ms <= MAX_TIME_MS)
    : [...new Set(sent)];
  kept.sort((a, b) => a - b);
  const made = new Set(ruleStarts({ startMs: to.startMs, zone: to.zone, rule }, new Set(kept)));
  if (!unchanged) {
    const fromStore = new Set(stored);
    sent.forEach((ms, index) => {
      if (!made.has(ms) && !fromStore.has(ms)) throw new ScheduleProblem(`exdates[${index}]`, `exdates[${index}] ${new Date(ms).toISOString()} is not the start of an occurrence of this series`);
    });
  }
  return { kept, applied: kept.filter((ms) => made.has(ms)) };
}

/** `ms` moved as the first start moved from `from` to `to`: the same shift of local wall-clock time. */
function moved(ms: number, from: Anchor, to: Anchor): number {
  if (from.startMs === to.startMs && from.zone === to.zone) return ms;
  // The first occurrence is start_time itself, whatever pass of a repeated hour it names: so is its exdate.
  if (ms === from.startMs) return to.startMs;
  const shift = wallOf(to.zone, to.startMs) - wallOf(from.zone, from.startMs);
  return lenientInstantOf(to.zone, scheduledWall(ms, from) + shift);
}

/**
 * The wall time `from`'s schedule names for its start `ms`: its day (or the day before, when a gap just before
 * midnight carried 23:30 into the next day) at the first start's time of day, when that is where it falls, else what
 * the clocks show at `ms`. The two differ for a start moved into a spring-forward gap: 02:30 on that night is kept as
 * 03:30 on the clocks, and moved back an hour it must be 01:30 again, not 02:30 (in the gap once more, so 03:30 for
 * good, and the cancelled occurrence at 01:30 back). One time of day serves every occurrence because the rules taken
 * have no BYHOUR or BYMINUTE.
 */
function scheduledWall(ms: number, from: Anchor): number {
  const wall = wallOf(from.zone, ms);
  const timeOfDay = mod(wallOf(from.zone, from.startMs), DAY_MS);
  const day = wall - mod(wall, DAY_MS);
  for (const named of [day + timeOfDay, day - DAY_MS + timeOfDay]) if (lenientInstantOf(from.zone, named) === ms) return named;
  return wall;
}

function mod(value: number, by: number): number {
  return ((value % by) + by) % by;
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  const first = new Set(a);
  const second = new Set(b);
  return first.size === second.size && [...first].every((ms) => second.has(ms));
}
