// validateSeries(): the OpenAPI examples pass, a PUT merges over the stored series, stale exdates are dropped only when not sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../src/auth/principal.js';
import { ApiError } from '../../src/http/errors.js';
import { SERIES_EXAMPLES } from '../../src/openapi/series-spec.js';
import { validateSeries } from '../../src/series/series-input.js';
import type { SeriesDocument } from '../../src/series/series-document.js';

const ORGANIZER: Principal = { keyId: 'key_o', name: 'Olivia Organizer', email: 'olivia@campus.edu', role: 'organizer' };

function stored(overrides: Partial<SeriesDocument> = {}): SeriesDocument {
  return {
    id: 'ser_0000000000000000000A', title: 'Lecture', description: '', category: 'academic', location: 'Hall A', capacity: 10,
    organizer: { name: ORGANIZER.name, email: ORGANIZER.email }, time_zone: 'UTC', start_time: '2027-09-06T09:00:00.000Z', end_time: '2027-09-06T10:00:00.000Z',
    recurrence: 'FREQ=DAILY;COUNT=5', exdates: ['2027-09-08T09:00:00.000Z'], created_at: '2027-01-01T00:00:00.000Z', occurrences: [], detached: {}, ...overrides,
  };
}

test('every POST /series example of the OpenAPI document is a valid series', () => {
  for (const [name, example] of Object.entries(SERIES_EXAMPLES)) {
    const input = validateSeries(example.value, ORGANIZER, undefined, 'UTC');
    assert.ok(input.occurrences.length > 1, name);
  }
});

test('validateSeries() on a PUT merges the body over the stored series, keeping its exdates', () => {
  const input = validateSeries({ location: 'Hall B' }, ORGANIZER, stored(), 'UTC');
  assert.equal(input.shared.location, 'Hall B');
  assert.equal(input.scheduleSent, false);
  assert.deepEqual(input.schedule.exdates, ['2027-09-08T09:00:00.000Z']);
  assert.equal(input.occurrences.length, 4);
  assert.equal(validateSeries({ time_zone: 'europe/berlin' }, ORGANIZER, stored(), 'UTC').schedule.time_zone, 'Europe/Berlin', 'a zone is kept as IANA spells it');
});

test('a new schedule drops the stored exdates it no longer makes, but refuses sent ones that do not match', () => {
  const moved = validateSeries({ start_time: '2027-09-06T11:00:00Z', end_time: '2027-09-06T12:00:00Z' }, ORGANIZER, stored(), 'UTC');
  assert.deepEqual(moved.schedule.exdates, []);
  assert.equal(moved.occurrences.length, 5);
  assert.throws(
    () => validateSeries({ exdates: ['2027-09-08T11:00:00Z'] }, ORGANIZER, stored(), 'UTC'),
    (error: unknown) => error instanceof ApiError && error.code === 'validation_failed' && error.details?.[0]?.field === 'exdates[0]',
  );
});

test('validateSeries() collects every problem of a body, each naming its field', () => {
  assert.throws(
    () => validateSeries({ title: '', capacity: 0, recurrence: 'FREQ=HOURLY', time_zone: 'Nowhere/Else', colour: 'red' }, ORGANIZER, undefined, 'UTC'),
    (error: unknown) => {
      assert.ok(error instanceof ApiError);
      const fields = error.details!.map((detail) => detail.field);
      for (const field of ['title', 'capacity', 'recurrence', 'time_zone', 'colour', 'category', 'location', 'start_time', 'end_time']) assert.ok(fields.includes(field), `${field} in ${fields.join(', ')}`);
      return true;
    },
  );
});
