// validateSeries(): the OpenAPI examples pass, a PUT merges over the stored series, stored exdates follow a moved start and stay valid.
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

test('a moved start takes the stored exdates along: the cancelled day stays cancelled at the new hour, and back again', () => {
  const moved = validateSeries({ start_time: '2027-09-06T11:00:00Z', end_time: '2027-09-06T12:00:00Z' }, ORGANIZER, stored(), 'UTC');
  assert.deepEqual(moved.schedule.exdates, ['2027-09-08T11:00:00.000Z']);
  assert.deepEqual(moved.occurrences.map((occurrence) => new Date(occurrence.startMs).toISOString().slice(0, 10)), ['2027-09-06', '2027-09-07', '2027-09-09', '2027-09-10']);
  const back = validateSeries({ start_time: '2027-09-06T09:00:00Z', end_time: '2027-09-06T10:00:00Z' }, ORGANIZER, { ...stored(), ...moved.schedule }, 'UTC');
  assert.deepEqual(back.schedule.exdates, ['2027-09-08T09:00:00.000Z']);
  assert.equal(back.occurrences.length, 4);
});

test('a moved start keeps each exdate at its local wall time across a daylight-saving change', () => {
  // Berlin, 10:00 local daily from 2027-10-29; the clocks go back on the 31st. The 1st of November's exdate is 09:00Z.
  const berlin = stored({ time_zone: 'Europe/Berlin', start_time: '2027-10-29T08:00:00.000Z', end_time: '2027-10-29T09:00:00.000Z', exdates: ['2027-11-01T09:00:00.000Z'] });
  const later = validateSeries({ start_time: '2027-10-29T09:00:00Z', end_time: '2027-10-29T10:00:00Z' }, ORGANIZER, berlin, 'UTC');
  assert.deepEqual(later.schedule.exdates, ['2027-11-01T10:00:00.000Z'], '11:00 local, after the change');
  assert.equal(later.occurrences.length, 4);
});

test('a stored exdate the new rule does not make is kept, not applied, and later writes stay valid', () => {
  // Every other day from the 6th: the 8th is made, the 7th (an exdate once the rule was daily) is not.
  const series = stored({ recurrence: 'FREQ=DAILY;INTERVAL=2;COUNT=3', exdates: ['2027-09-07T09:00:00.000Z'] });
  const renamed = validateSeries({ title: 'Renamed' }, ORGANIZER, series, 'UTC');
  assert.deepEqual(renamed.schedule.exdates, ['2027-09-07T09:00:00.000Z']);
  assert.equal(renamed.occurrences.length, 3);
  const asRead = validateSeries({ title: 'Again', exdates: ['2027-09-07T09:00:00.000Z'] }, ORGANIZER, series, 'UTC');
  assert.equal(asRead.occurrences.length, 3, 'the series sent back as read is valid');
  const daily = validateSeries({ recurrence: 'FREQ=DAILY;COUNT=5' }, ORGANIZER, series, 'UTC');
  assert.equal(daily.occurrences.length, 4, 'made again, the cancelled start stays cancelled');
  assert.throws(
    () => validateSeries({ exdates: ['2027-09-07T09:00:00.000Z', '2027-09-09T09:00:00Z'] }, ORGANIZER, series, 'UTC'),
    (error: unknown) => error instanceof ApiError && error.code === 'validation_failed' && error.details?.[0]?.field === 'exdates[1]',
    'an exdate added that the rule does not make is refused, naming its index as sent',
  );
});

test('the limits count the occurrences exdates leave: 501 dates less one is 500, and a last date left out is no span', () => {
  const base = { title: 'Daily', category: 'academic', location: 'Hall', capacity: 5, start_time: '2027-03-02T10:00:00Z', end_time: '2027-03-02T11:00:00Z' };
  const daily501 = { ...base, recurrence: 'FREQ=DAILY;UNTIL=20280714T100000Z' };
  assert.throws(() => validateSeries(daily501, ORGANIZER, undefined, 'UTC'), /more than 500 occurrences/);
  assert.equal(validateSeries({ ...daily501, exdates: ['2027-03-05T10:00:00Z'] }, ORGANIZER, undefined, 'UTC').occurrences.length, 500);
  const span = { ...base, recurrence: 'FREQ=WEEKLY;BYDAY=TU,SU;COUNT=314' };
  assert.throws(() => validateSeries(span, ORGANIZER, undefined, 'UTC'), /more than 1096 days/);
  assert.equal(validateSeries({ ...span, exdates: ['2030-03-03T10:00:00Z'] }, ORGANIZER, undefined, 'UTC').occurrences.length, 313);
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
