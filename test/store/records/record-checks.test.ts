// The rules of a line's fields that writing and reading share: what replay could not read back, the log's times, and
// the range of a seq. A failure prints its seed: rerun with RECORD_CHECKS_SEED=n.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventRecord } from '../../../src/events/event.js';
import { checkSeq, isoTime, timeMs, unloggableReason } from '../../../src/store/records/record-checks.js';
import { mulberry32 } from '../../helpers/random.js';
import { sampleRecord } from '../helpers.js';
import { recordSamples } from './random-records.js';

const SEED = Number(process.env['RECORD_CHECKS_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const random = mulberry32(SEED);
const { eventRecord } = recordSamples(random);

/** 10000-01-01T00:00:00.000Z: the first time the log cannot hold. */
const LIMIT_MS = Date.UTC(10000, 0, 1);

test('unloggableReason() refuses what replay could not read back: a NaN or infinite number, a bad category, time or e-mail', () => {
  assert.equal(unloggableReason(sampleRecord(1)), undefined);
  assert.match(unloggableReason(sampleRecord(1, { capacity: Number.NaN })) ?? '', /capacity and registered_count must be numbers/);
  assert.match(unloggableReason(sampleRecord(1, { registered_count: Number.POSITIVE_INFINITY })) ?? '', /capacity and registered_count/);
  assert.match(unloggableReason(sampleRecord(1, { category: 'party' as never })) ?? '', /category "party" is unknown/);
  assert.match(unloggableReason(sampleRecord(1, { start_time: '2026-09-01T17:00:00.000Zjunk' })) ?? '', /start_time and end_time/);
  assert.match(unloggableReason(sampleRecord(1, { end_time: '2026-09-01T19:00:00Z' })) ?? '', /start_time and end_time/);
  assert.match(unloggableReason(sampleRecord(1, { created_at: '2026-08-01T12:00:00.000Zjunk' })) ?? '', /created_at/);
  assert.match(unloggableReason(sampleRecord(1, { organizer: { name: 'X' } as never })) ?? '', /no organizer e-mail/);
  assert.match(unloggableReason(sampleRecord(1, { id: 'evt_1' })) ?? '', /id "evt_1"/);
});

test('unloggableReason() names each field replay would refuse, and accepts a good record', () => {
  const record = eventRecord(true);
  assert.equal(unloggableReason(record), undefined);
  const cases: [Partial<EventRecord> | Record<string, unknown>, RegExp][] = [
    [{ id: 'evt_short' }, /id/],
    [{ id: 5 }, /id/],
    [{ id: ['evt_0000000000000000'] }, /id/],
    [{ id: 'xevt_0000000000000000' }, /id/],
    [{ id: 'evt_0000000000000000!' }, /id/],
    [{ created_at: ['2026-08-01T12:00:00.000Z'] }, /created_at/],
    [{ category: 'party' }, /category/],
    [{ start_time: '2026-08-01T12:00:00Z' }, /start_time/],
    [{ end_time: 'x' }, /end_time/],
    [{ created_at: '2026-08-01T12:00:00Z' }, /created_at/],
    [{ created_at: 5 }, /created_at/],
    [{ capacity: Number.POSITIVE_INFINITY }, /capacity/],
    [{ registered_count: Number.NaN }, /registered_count/],
    [{ organizer: { name: 'x' } }, /e-mail/],
    [{ organizer: null }, /e-mail/],
  ];
  for (const [change, reason] of cases) assert.match(unloggableReason({ ...record, ...change } as EventRecord) ?? 'accepted', reason, JSON.stringify(change));
});

test(`timeMs() reads every real time from 1970 to 9999 as Date.parse does, and isoTime() writes it back (RECORD_CHECKS_SEED=${SEED})`, () => {
  const edges = [0, 1, Date.UTC(2000, 1, 29), Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(2100, 1, 28), LIMIT_MS - 1];
  for (let n = 0; n < 2000; n++) {
    const ms = n < edges.length ? edges[n]! : Math.floor(random() * LIMIT_MS);
    const text = isoTime(ms, 'a time');
    assert.equal(text, new Date(ms).toISOString(), `ms ${ms}`);
    assert.equal(timeMs(text), ms, text);
  }
});

test('timeMs() is NaN for anything but a real time YYYY-MM-DDTHH:MM:SS.sssZ from 1970 on', () => {
  const refused: unknown[] = [
    '2026-02-29T00:00:00.000Z',
    '2100-02-29T00:00:00.000Z',
    '2026-04-31T00:00:00.000Z',
    '2026-01-01T24:00:00.000Z',
    '1969-12-31T23:59:59.999Z',
    '2026-01-01T00:00:00Z',
    '2026-01-01T00:00:00.000+00:00',
    '2026-01-01T00:00:00.000Z ',
    '+02026-01-01T00:00:00.000Z',
    '２026-01-01T00:00:00.000Z',
    '',
    Date.UTC(2026, 0, 1),
    null,
    undefined,
    new Date(0),
  ];
  for (const value of refused) assert.ok(Number.isNaN(timeMs(value)), String(value));
});

test('isoTime() refuses a time replay could not read back, naming what it is and the value', () => {
  for (const ms of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, LIMIT_MS, 2 ** 53]) {
    assert.throws(() => isoTime(ms, 'the time of a change'), (error: unknown) => error instanceof TypeError && error.message === `the time of a change must be a whole number of ms from 1970 to 9999, got ${ms}`, String(ms));
  }
});

test('checkSeq() gives back a seq from 1 to 999,999,999,999,999 (the 15 digits the decoder reads) and refuses any other', () => {
  for (const seq of [1, 2, 10 ** 15 - 1]) assert.equal(checkSeq(seq), seq);
  for (const seq of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 10 ** 15, 2 ** 53]) {
    assert.throws(() => checkSeq(seq), (error: unknown) => error instanceof TypeError && error.message === `a sequence number is an integer from 1 to 999999999999999, got ${seq}`, String(seq));
  }
});
