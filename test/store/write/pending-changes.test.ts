// PendingChanges: the write queue's latest queued state falls back on the committed views, stays until the last change
// queued to each event or document is durable, and its working rosters see the committed ones through queued changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DocumentTable } from '../../../src/store/views/document-table.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { PendingChanges } from '../../../src/store/write/pending-changes.js';
import { RosterTable } from '../../../src/store/views/roster-table.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { eventId, sampleRecord } from '../helpers.js';
import { registrationId } from '../views/roster-helpers.js';

const NOW = Date.parse('2030-01-01T00:00:00.000Z');

function views() {
  const index = new EventIndex();
  const rosters = new RosterTable();
  const documents = new DocumentTable();
  const committed = toStored(sampleRecord(1), 1);
  index.put(committed);
  rosters.apply({ seq: 2, op: 'reg', registration: { id: registrationId(1), eventId: eventId(1), name: 'A', email: 'a@x.edu', status: 'confirmed', createdAt: '2026-08-01T12:00:00.000Z', checkedInAt: null, seq: 2 } });
  documents.set('series', 's1', { collection: 'series', id: 's1', json: '{"v":1}', seq: 3 });
  const pending = new PendingChanges<{ name: string }>({ index, rosters, documents, now: () => NOW });
  return { index, rosters, documents, committed, pending };
}

test('PendingChanges reads the committed views until a change is queued, then the queued state, until the last change queued is durable', () => {
  const { committed, documents, pending } = views();
  const id = eventId(1);
  assert.equal(pending.event(id), committed);
  assert.equal(pending.isQueued(id), false);
  assert.equal(pending.roster(id).confirmed, 1);
  assert.equal(pending.document('series', 's1')?.json, '{"v":1}');
  assert.equal(pending.now(), NOW);
  const first = { name: 'first' };
  const second = { name: 'second' };
  const changed = toStored(sampleRecord(1, { title: 'Changed' }), 4);
  pending.queue(id, first, changed);
  pending.queue(id, second, undefined);
  assert.equal(pending.event(id), changed, 'a change that leaves the event (undefined) keeps the queued state');
  assert.equal(pending.isQueued(id), true);
  pending.queueDocument('series', 's1', null, first);
  assert.equal(pending.document('series', 's1'), undefined, 'a document deleted while queued');
  pending.committed(id, first);
  pending.committedDocument('series', 's1', second);
  assert.equal(pending.isQueued(id), true, 'a later change is still queued');
  assert.equal(pending.document('series', 's1'), undefined, 'a change that was not the document\'s last leaves it queued');
  documents.set('series', 's1', { collection: 'series', id: 's1', json: '{"v":2}', seq: 5 });
  pending.committedDocument('series', 's1', first);
  assert.equal(pending.document('series', 's1')?.json, '{"v":2}', 'its last change durable: the committed table again');
  pending.committed(id, second);
  assert.equal(pending.isQueued(id), false);
  assert.equal(pending.event(id), committed, 'nothing queued: the committed index again (the commit puts the new state there)');
});

test('PendingChanges: a working roster changes apart from the committed one; a deleted event\'s roster is empty from then on; clear() forgets it all', () => {
  const { rosters, pending } = views();
  const id = eventId(1);
  const change = { name: 'register' };
  const entry = pending.queue(id, change, undefined);
  const working = pending.working(id, entry);
  assert.notEqual(working, rosters.get(id), 'not the committed roster');
  assert.equal(pending.working(id, entry), working, 'made once');
  assert.equal(pending.roster(id), working);
  working.add({ id: registrationId(2), eventId: id, name: 'B', email: 'b@x.edu', status: 'confirmed', createdAt: '2026-08-01T12:00:00.000Z', checkedInAt: null, seq: 5 });
  assert.deepEqual([pending.roster(id).confirmed, rosters.get(id).confirmed], [2, 1], 'the queued state counts the queued registration; the committed one does not');
  pending.committed(id, change);
  assert.equal(pending.roster(id), rosters.get(id), 'every change durable: the committed roster again');
  const later = { name: 'later' };
  pending.queue(id, later, undefined);
  const deletion = { name: 'delete' };
  pending.queue(id, deletion, null);
  assert.equal(pending.event(id), undefined);
  assert.equal(pending.roster(id).size, 0);
  pending.queueDocument('series', 's2', { collection: 'series', id: 's2', json: '{}', seq: 9 }, deletion);
  pending.clear();
  assert.equal(pending.isQueued(id), false);
  assert.equal(pending.roster(id).size, 1, 'the committed roster again');
  assert.equal(pending.document('series', 's2'), undefined);
});
