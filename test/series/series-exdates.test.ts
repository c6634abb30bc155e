// planExdates through validateSeries over seeded random histories of a series (EXDATES_SEED=n replays one): deletes,
// moves of its start, new rules, renames and the series sent back as read. Every write the API would take is valid,
// and no cancelled occurrence ever comes back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../src/auth/principal.js';
import { ApiError } from '../../src/http/errors.js';
import { lenientInstantOf, wallOf } from '../../src/series/expand.js';
import type { SeriesDocument } from '../../src/series/series-document.js';
import { validateSeries, type SeriesInput } from '../../src/series/series-input.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['EXDATES_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const HISTORIES = 300;
const STEPS = 12;
const ORGANIZER: Principal = { keyId: 'key_o', name: 'Olivia Organizer', email: 'olivia@campus.edu', role: 'organizer' };
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'];
const RULES = ['FREQ=DAILY;COUNT=12', 'FREQ=DAILY;INTERVAL=2;COUNT=8', 'FREQ=WEEKLY;COUNT=10', 'FREQ=DAILY;UNTIL=20280120'];
const HOUR_MS = 3_600_000;

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** The stored series after a write validated as `input`. */
function stored(previous: SeriesDocument | undefined, input: SeriesInput): SeriesDocument {
  return {
    id: 'ser_0000000000000000000A',
    created_at: '2027-01-01T00:00:00.000Z',
    occurrences: [],
    detached: {},
    ...(previous ?? {}),
    ...input.shared,
    ...input.schedule,
  };
}

test(`a series' exdates over random histories: every write is valid and a cancelled occurrence never comes back (EXDATES_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let history = 0; history < HISTORIES; history++) {
    const zone = pick(random, ZONES);
    const firstMs = Date.UTC(2027, 10, 1 + Math.floor(random() * 20), 6 + Math.floor(random() * 10));
    const body = { title: 'Lecture', category: 'academic', location: 'Hall A', capacity: 10, time_zone: zone, start_time: new Date(firstMs).toISOString(), end_time: new Date(firstMs + HOUR_MS).toISOString(), recurrence: pick(random, RULES) };
    let input = validateSeries(body, ORGANIZER, undefined, 'UTC');
    let series = stored(undefined, input);
    /** Starts cancelled one by one, moved as the series' first start moves (the same local shift). */
    let cancelled: number[] = [];
    const trail: string[] = [JSON.stringify(body)];
    const write = (change: Record<string, unknown>): SeriesInput | undefined => {
      trail.push(JSON.stringify(change));
      try {
        return validateSeries(change, ORGANIZER, series, 'UTC');
      } catch (error) {
        assert.ok(error instanceof ApiError && error.code === 'validation_failed', `not a 400 but ${String(error)}: ${trail.join(' → ')}`);
        return undefined;
      }
    };
    for (let step = 0; step < STEPS; step++) {
      const kind = pick(random, ['delete', 'move', 'rule', 'rename', 'asRead'] as const);
      let next: SeriesInput | undefined;
      if (kind === 'delete') {
        // As DELETE /events/{id} does: the occurrence's start joins the exdates.
        const victim = pick(random, input.occurrences);
        if (input.occurrences.length < 2) continue;
        next = write({ exdates: [...series.exdates, new Date(victim.startMs).toISOString()] });
        assert.ok(next !== undefined, `deleting an occurrence is valid: ${trail.join(' → ')}`);
        cancelled.push(victim.startMs);
      } else if (kind === 'move') {
        const shift = pick(random, [-2, -1, 1, 2, 24, -24, 49]) * HOUR_MS;
        const startMs = Date.parse(series.start_time) + shift;
        next = write({ start_time: new Date(startMs).toISOString(), end_time: new Date(startMs + HOUR_MS).toISOString() });
        if (next !== undefined) {
          const from = { zone: series.time_zone, startMs: Date.parse(series.start_time) };
          const wallShift = wallOf(zone, startMs) - wallOf(from.zone, from.startMs);
          cancelled = cancelled.map((ms) => lenientInstantOf(zone, wallOf(zone, ms) + wallShift));
        }
      } else if (kind === 'rule') {
        next = write({ recurrence: pick(random, RULES) });
      } else if (kind === 'rename') {
        next = write({ title: `Lecture ${step}` });
        assert.ok(next !== undefined, `a rename is always valid: ${trail.join(' → ')}`);
      } else {
        const { id: _id, created_at: _created, occurrences: _occurrences, detached: _detached, ...asRead } = series;
        next = write(asRead);
        assert.ok(next !== undefined, `the series sent back as read is valid: ${trail.join(' → ')}`);
      }
      if (next === undefined) continue;
      input = next;
      series = stored(series, input);
      const starts = new Set(input.occurrences.map((occurrence) => occurrence.startMs));
      for (const ms of cancelled) assert.ok(!starts.has(ms), `${new Date(ms).toISOString()} was cancelled and came back: ${trail.join(' → ')}`);
      assert.ok(series.exdates.length <= 500, trail.join(' → '));
    }
  }
});
