// planExdates through validateSeries over seeded random histories of a series (EXDATES_SEED=n replays one): deletes,
// moves of its start, new rules, renames and the series sent back as read. Every write the API would take is valid,
// and no cancelled occurrence ever comes back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../src/auth/principal.js';
import { ApiError } from '../../src/http/errors.js';
import { lenientInstantOf, wallOf } from '../../src/series/expand.js';
import type { StoredEvent } from '../../src/events/event.js';
import type { SeriesDocument } from '../../src/series/series-document.js';
import { validateSeries, type SeriesInput } from '../../src/series/series-input.js';
import { withoutOccurrence } from '../../src/series/series-plan.js';
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
      const kind = pick(random, ['delete', 'exclude', 'move', 'rule', 'rename', 'asRead', 'asReadMoved'] as const);
      let next: SeriesInput | undefined;
      if (kind === 'delete' || kind === 'exclude') {
        if (input.occurrences.length < 2) continue;
        const victim = pick(random, input.occurrences);
        if (kind === 'delete') {
          // DELETE /events/{id}: the series as the store writes it, then read back by a PUT that changes nothing.
          trail.push(`DELETE ${new Date(victim.startMs).toISOString()}`);
          series = withoutOccurrence(series, { id: 'evt_victim', startMs: victim.startMs } as StoredEvent);
          next = write({});
        } else {
          next = write({ exdates: [...series.exdates, new Date(victim.startMs).toISOString()] });
        }
        assert.ok(next !== undefined, `leaving out an occurrence is valid: ${trail.join(' → ')}`);
        cancelled.push(victim.startMs);
      } else if (kind === 'asReadMoved') {
        // The series sent back as read with a new start: its exdates as read are never what refuses it.
        const { id: _id, created_at: _created, occurrences: _occurrences, detached: _detached, ...asRead } = series;
        const startMs = Date.parse(series.start_time) + pick(random, [1, -1, 24]) * HOUR_MS;
        trail.push(`as read, moved to ${new Date(startMs).toISOString()}`);
        try {
          next = validateSeries({ ...asRead, start_time: new Date(startMs).toISOString(), end_time: new Date(startMs + HOUR_MS).toISOString() }, ORGANIZER, series, 'UTC');
        } catch (error) {
          assert.ok(error instanceof ApiError && !error.details?.some((detail) => detail.field.startsWith('exdates')), `refused for its exdates: ${String(error instanceof ApiError ? JSON.stringify(error.details) : error)}: ${trail.join(' → ')}`);
        }
        if (next !== undefined) {
          const wallShift = wallOf(zone, startMs) - wallOf(series.time_zone, Date.parse(series.start_time));
          cancelled = cancelled.map((ms) => lenientInstantOf(zone, wallOf(zone, ms) + wallShift));
        }
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

test('a series whose deletes took its exdates past 500 is still sent back as read; stale exdates make room first', () => {
  // Daily for 1,000 days with 500 left out: 500 occurrences. One more delete makes 501 exdates.
  const startMs = Date.UTC(2027, 0, 4, 9);
  const left = Array.from({ length: 500 }, (_, i) => new Date(startMs + (2 * i + 1) * 24 * HOUR_MS).toISOString());
  const body = { title: 'Daily', category: 'academic', location: 'Hall', capacity: 5, time_zone: 'UTC', start_time: new Date(startMs).toISOString(), end_time: new Date(startMs + HOUR_MS).toISOString(), recurrence: `FREQ=DAILY;UNTIL=${new Date(startMs + 999 * 24 * HOUR_MS).toISOString().slice(0, 10).replaceAll('-', '')}`, exdates: left };
  const input = validateSeries(body, ORGANIZER, undefined, 'UTC');
  assert.equal(input.occurrences.length, 500);
  const deleted = withoutOccurrence(stored(undefined, input), { id: 'evt_x', startMs: input.occurrences[1]!.startMs } as StoredEvent);
  assert.equal(deleted.exdates.length, 501);
  const { id: _id, created_at: _created, occurrences: _occurrences, detached: _detached, ...asRead } = deleted;
  assert.equal(validateSeries({ ...asRead, title: 'Renamed' }, ORGANIZER, deleted, 'UTC').occurrences.length, 499);
  // A body of a new series still may send at most 500.
  assert.throws(() => validateSeries({ ...body, exdates: [...left, new Date(startMs + 1001 * 24 * HOUR_MS).toISOString()] }, ORGANIZER, undefined, 'UTC'), /at most 500/);
  // With exdates kept from an older schedule, a delete past 500 drops those first.
  const stale = { ...deleted, exdates: [...deleted.exdates.slice(0, 500), '2026-12-31T09:00:00.000Z'] };
  const after = withoutOccurrence(stale, { id: 'evt_y', startMs: input.occurrences[2]!.startMs } as StoredEvent);
  assert.ok(!after.exdates.includes('2026-12-31T09:00:00.000Z'));
  assert.equal(after.exdates.length, 501);
});


test('a cancelled occurrence stays cancelled when the series moves into a spring-forward gap and back', () => {
  // Daily at 01:30 in Berlin and 01:00 in New York; the night the clocks skip 02:00–03:00 is cancelled; the series moves
  // an hour later (that night's start is then in the gap) and back.
  for (const { zone, firstMs, cancelledMs } of [
    { zone: 'Europe/Berlin', firstMs: Date.UTC(2027, 2, 26, 0, 30), cancelledMs: Date.UTC(2027, 2, 28, 0, 30) },
    { zone: 'America/New_York', firstMs: Date.UTC(2027, 2, 12, 6), cancelledMs: Date.UTC(2027, 2, 14, 6) },
  ]) {
    const body = { title: 'Night shift', category: 'academic', location: 'Lab', capacity: 5, time_zone: zone, start_time: new Date(firstMs).toISOString(), end_time: new Date(firstMs + HOUR_MS / 2).toISOString(), recurrence: 'FREQ=DAILY;COUNT=5' };
    let series = stored(undefined, validateSeries(body, ORGANIZER, undefined, 'UTC'));
    series = withoutOccurrence(series, { id: 'evt_victim', startMs: cancelledMs } as StoredEvent);
    const exdates = series.exdates;
    for (const startMs of [firstMs + HOUR_MS, firstMs]) {
      const input = validateSeries({ start_time: new Date(startMs).toISOString(), end_time: new Date(startMs + HOUR_MS / 2).toISOString() }, ORGANIZER, series, 'UTC');
      series = stored(series, input);
      assert.ok(!input.occurrences.some((occurrence) => occurrence.startMs === cancelledMs), `${zone}: ${new Date(cancelledMs).toISOString()} came back: ${JSON.stringify(series.exdates)}`);
    }
    assert.deepEqual(series.exdates, exdates, `${zone}: moved and moved back, the exdates are as they were`);
  }
});

test('a cancelled first occurrence stays cancelled when the series starts in the second pass of a repeated hour, moves away and back', () => {
  // 2027-10-31T01:30Z is the second 02:30 in Berlin (the clocks went back at 03:00 CEST).
  const firstMs = Date.UTC(2027, 9, 31, 1, 30);
  const body = { title: 'Night owls', category: 'social', location: 'Cafe', capacity: 5, time_zone: 'Europe/Berlin', start_time: new Date(firstMs).toISOString(), end_time: new Date(firstMs + HOUR_MS).toISOString(), recurrence: 'FREQ=DAILY;COUNT=4' };
  let series = stored(undefined, validateSeries(body, ORGANIZER, undefined, 'UTC'));
  series = withoutOccurrence(series, { id: 'evt_first', startMs: firstMs } as StoredEvent);
  const exdates = series.exdates;
  for (const startMs of [Date.UTC(2027, 10, 1, 9), firstMs]) {
    const input = validateSeries({ start_time: new Date(startMs).toISOString(), end_time: new Date(startMs + HOUR_MS).toISOString() }, ORGANIZER, series, 'UTC');
    series = stored(series, input);
    assert.ok(!input.occurrences.some((occurrence) => occurrence.startMs === startMs), `the first occurrence at ${new Date(startMs).toISOString()} came back: ${JSON.stringify(series.exdates)}`);
  }
  assert.deepEqual(series.exdates, exdates);
});
