// The JSON of change-feed entries and pages (API.md §9.2): next_since while more, and on the last page; the copy token.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored } from '../../src/store/views/served-event.js';
import { changeEntryJson, changeEventFrame, changePageJson } from '../../src/feeds/change-entry.js';
import type { Change } from '../../src/store/views/change-log.js';
import { eventId, sampleRecord } from '../store/helpers.js';

const live: Change = { seq: 4, id: eventId(1), event: toStored(sampleRecord(1), 4) };
const gone: Change = { seq: 6, id: eventId(2), event: null };

test('changeEntryJson() and changeEventFrame() write an entry with the event as a single read gives it, or null once deleted', () => {
  assert.deepEqual(JSON.parse(changeEntryJson(live)), { seq: 4, id: eventId(1), deleted: false, event: JSON.parse(live.event!.json) });
  assert.equal(changeEntryJson(gone), `{"seq":6,"id":"${eventId(2)}","deleted":true,"event":null}`);
  assert.equal(changeEventFrame(gone), `id: 6\nevent: change\ndata: ${changeEntryJson(gone)}\n\n`);
});

test('changePageJson(): while more, next_since is the last entry and the copy token rides along; on the last page, the newest write and no token', () => {
  const page = (changes: Change[], end: Parameters<typeof changePageJson>[1]): unknown => JSON.parse(changePageJson(changes, end));
  assert.deepEqual(page([live, gone], { since: 2, more: true, lastSeq: 9, copy: 'tok' }), { changes: [JSON.parse(changeEntryJson(live)), JSON.parse(changeEntryJson(gone))], next_since: 6, more: true, copy: 'tok' });
  assert.deepEqual(page([live], { since: 2, more: true, lastSeq: 9 }), { changes: [JSON.parse(changeEntryJson(live))], next_since: 4, more: true });
  assert.deepEqual(page([live, gone], { since: 2, more: false, lastSeq: 9, copy: 'tok' }), { changes: [JSON.parse(changeEntryJson(live)), JSON.parse(changeEntryJson(gone))], next_since: 9, more: false });
  assert.deepEqual(page([], { since: 7, more: false, lastSeq: 9 }), { changes: [], next_since: 9, more: false });
  assert.deepEqual(page([], { since: 9, more: false, lastSeq: 9 }), { changes: [], next_since: 9, more: false });
  assert.deepEqual(page([gone], { since: 5, more: false, lastSeq: 3 }), { changes: [JSON.parse(changeEntryJson(gone))], next_since: 6, more: false }, 'never behind the last entry');
  assert.deepEqual(page([], { since: 8, more: false, lastSeq: 3 }), { changes: [], next_since: 8, more: false }, 'never behind since');
});
