// Tests for the JSON forms of an event: the view and the create response, which a create now makes from the view.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createdJson, createdJsonFromView, type EventRecord, viewJson } from '../../src/events/event.js';
import { mulberry32 } from '../helpers/random.js';

test('the create response made from the view is createdJson, whatever the text, series and publishing fields (seeded)', () => {
  const seed = Number(process.env['EVENT_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const random = mulberry32(seed);
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  // Texts that look like the parts the response is cut at, quotes and escapes, and characters past ASCII.
  const TEXTS = ['Talk', '', 'a "quoted" title', ',"organizer":{"name":"x","email":"y"}', '"registered_count":3', 'back\\slash', 'line\nbreak', 'Öffnung 日本 😀', '}', '{"name":"Ada"}'];
  for (let i = 0; i < 2_000; i++) {
    const status = pick([undefined, 'published', 'draft', 'pending', 'cancelled'] as const);
    const record: EventRecord = {
      id: `evt_${i.toString(36).padStart(22, '0')}`,
      title: pick(TEXTS),
      description: pick(TEXTS),
      category: 'academic',
      location: pick(TEXTS),
      start_time: '2027-03-01T18:00:00.000Z',
      end_time: '2027-03-01T20:00:00.000Z',
      capacity: Math.floor(random() * 500),
      registered_count: Math.floor(random() * 5),
      organizer: { name: pick(TEXTS), email: pick(['ada@campus.edu', 'o"brien@campus.edu']) },
      created_at: '2026-11-28T17:00:00.000Z',
      ...(random() < 0.3 ? { series_id: `ser_${i}` } : {}),
      ...(status === undefined ? {} : { status }),
      ...(random() < 0.3 ? { review_note: pick(TEXTS) } : {}),
      ...(random() < 0.3 ? { cancellation_reason: pick(TEXTS) } : {}),
    } as EventRecord;
    assert.equal(createdJsonFromView(record, viewJson(record)), createdJson(record), `seed ${seed}, record ${JSON.stringify(record)}`);
  }
});

test('a view without the organizer (none is stored so) still gives the create response', () => {
  const record = { id: 'evt_1', title: 'T', description: '', category: 'academic', location: 'L', start_time: '2027-03-01T18:00:00.000Z', end_time: '2027-03-01T20:00:00.000Z', capacity: 5, registered_count: 0, organizer: { name: 'Ada', email: 'ada@campus.edu' }, created_at: '2026-11-28T17:00:00.000Z' } as EventRecord;
  assert.equal(createdJsonFromView(record, '{"id":"evt_1"}'), createdJson(record));
});
