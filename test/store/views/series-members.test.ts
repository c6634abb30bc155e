// SeriesMembers and series_id in the store: the occurrences of a series, listed as GET /events lists, and read back from logged bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored } from '../../../src/store/views/served-event.js';
import { viewJson } from '../../../src/events/event.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { scanStoredView } from '../../../src/store/views/view-scan.js';
import { eventId, sampleRecord } from '../helpers.js';

const SERIES = 'ser_0000000000000000000A';

test('scanStoredView() reads series_id from an occurrence\'s view exactly as toStored gives it, and its absence from a one-off', () => {
  for (const record of [sampleRecord(1, { series_id: SERIES }), sampleRecord(2), sampleRecord(3, { series_id: SERIES, organizer: { name: 'x"}', email: 'a@b.example' } })]) {
    const view = viewJson(record);
    const buf = Buffer.from(`xx${view}yy`);
    const scanned = scanStoredView(buf, 2, buf.length - 2, view, record.created_at, 9, Date.parse(record.created_at), undefined);
    assert.deepEqual(scanned, toStored(record, 9), view);
  }
});

test('EventIndex.list() with seriesId pages through only that series, in (start, id) order, with the other filters', () => {
  const index = new EventIndex();
  for (let n = 1; n <= 30; n++) {
    const start = new Date(Date.UTC(2027, 0, 31 - n, 9)).toISOString();
    index.put(toStored(sampleRecord(n, { start_time: start, end_time: start.replace('T09', 'T10'), series_id: n % 3 === 0 ? undefined : n % 3 === 1 ? SERIES : 'ser_0000000000000000000B', category: n % 2 === 0 ? 'social' : 'academic' }), n));
  }
  const page = index.list({ seriesId: SERIES, limit: 4, page: 2 });
  assert.equal(page.total, 10);
  assert.deepEqual(page.events.map((each) => each.id), [16, 13, 10, 7].map(eventId));
  assert.equal(index.list({ seriesId: SERIES, category: 'social', limit: 50, page: 1 }).total, 5);
  assert.equal(index.list({ seriesId: SERIES, startFromMs: Date.UTC(2027, 0, 20), limit: 50, page: 1 }).total, 4);
  index.delete(eventId(1));
  index.put(toStored(sampleRecord(4, { series_id: undefined }), 40));
  assert.equal(index.list({ seriesId: SERIES, limit: 50, page: 1 }).total, 8, 'a deleted occurrence and one that left the series are gone from it');
  assert.equal(index.list({ seriesId: 'ser_0000000000000000000Z', limit: 50, page: 1 }).total, 0);
});
