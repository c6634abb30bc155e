// messagesOf: the messages of each kind of durable line, in their fixed order, with stable ids.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored, withRegisteredCount } from '../../src/store/views/served-event.js';
import { viewJson, type EventRecord } from '../../src/events/event.js';
import { messagesOf } from '../../src/webhooks/messages.js';
import type { Registration } from '../../src/store/views/roster.js';
import { crc32 } from '../../src/lib/crc32.js';

const RECORD: EventRecord = {
  id: 'evt_0123456789abcdef',
  title: 'Talk',
  description: '',
  category: 'academic',
  location: 'Hall',
  start_time: '2027-01-01T10:00:00.000Z',
  end_time: '2027-01-01T11:00:00.000Z',
  capacity: 1,
  registered_count: 0,
  organizer: { name: 'Ada', email: 'ada@campus.edu' },
  created_at: '2026-11-25T08:00:00.000Z',
};
const EVENT = toStored(RECORD, 1, viewJson(RECORD), Date.parse(RECORD.created_at));
const registration = (id: string, status: Registration['status'], seq: number): Registration => ({ id, eventId: EVENT.id, name: id, email: `${id}@campus.edu`, status, createdAt: '2026-11-25T09:00:00.000Z', checkedInAt: null, seq });
const ANA = registration('reg_ana0000000000000000000000', 'confirmed', 2);
const BEN = registration('reg_ben0000000000000000000000', 'waitlisted', 4);

test('messagesOf a put of a new event is one event.created with the event as a single read gives it', () => {
  const [message, ...rest] = messagesOf({ record: { seq: 1, op: 'put', stored: EVENT }, before: undefined, after: EVENT, touched: [], atMs: 0 });
  assert.deepEqual(rest, []);
  assert.equal(message!.idIn('k3J9x2Qa'), `msg_k3J9x2Qa_1_0_${crc32(message!.body).toString(36)}`);
  assert.deepEqual(JSON.parse(message!.body), { type: 'event.created', timestamp: '2026-11-25T08:00:00.000Z', data: JSON.parse(EVENT.json) });
});

test('messagesOf a confirmed registration is registration.created, then event.updated with the new registered_count', () => {
  const after = withRegisteredCount(EVENT, 1, 3, Date.parse(ANA.createdAt));
  const messages = messagesOf({ record: { seq: 3, op: 'reg', registration: ANA }, before: EVENT, after, touched: [], atMs: 0 });
  assert.deepEqual(messages.map((m) => [m.idIn('L'), m.type]), [[`msg_L_3_0_${crc32(messages[0]!.body).toString(36)}`, 'registration.created'], [`msg_L_3_1_${crc32(messages[1]!.body).toString(36)}`, 'event.updated']]);
  assert.deepEqual(JSON.parse(messages[0]!.body).data, { event_id: EVENT.id, registration: { id: ANA.id, event_id: EVENT.id, name: ANA.name, email: ANA.email, status: 'confirmed', created_at: ANA.createdAt, checked_in_at: null } });
  assert.equal(JSON.parse(messages[1]!.body).data.registered_count, 1);
});

test('messagesOf a cancel that frees a seat for the waitlist is registration.cancelled then registration.promoted, and no event.updated', () => {
  const record = { seq: 5, op: 'cancel' as const, eventId: EVENT.id, id: ANA.id, atMs: Date.parse('2026-11-25T10:00:00Z'), promoted: [BEN.id] };
  const messages = messagesOf({ record, before: EVENT, after: undefined, touched: [ANA, BEN], atMs: 0 });
  assert.deepEqual(messages.map((m) => m.type), ['registration.cancelled', 'registration.promoted']);
  const promoted = JSON.parse(messages[1]!.body);
  assert.equal(promoted.data.registration.id, BEN.id);
  assert.equal(promoted.data.registration.status, 'confirmed');
  assert.equal(promoted.timestamp, '2026-11-25T10:00:00.000Z');
});

test('messagesOf a waitlisted cancel names only the cancelled one; a check-in carries its time; a delete only the id', () => {
  const cancel = messagesOf({ record: { seq: 6, op: 'cancel', eventId: EVENT.id, id: BEN.id, atMs: 0, promoted: [] }, before: EVENT, after: undefined, touched: [BEN], atMs: 0 });
  assert.deepEqual(cancel.map((m) => [m.type, JSON.parse(m.body).data.registration.id]), [['registration.cancelled', BEN.id]]);
  const checkIn = messagesOf({ record: { seq: 7, op: 'checkin', eventId: EVENT.id, id: ANA.id, at: '2027-01-01T09:55:00.000Z' }, before: EVENT, after: undefined, touched: [ANA], atMs: 0 });
  assert.equal(JSON.parse(checkIn[0]!.body).data.registration.checked_in_at, '2027-01-01T09:55:00.000Z');
  const deleted = messagesOf({ record: { seq: 8, op: 'del', id: EVENT.id }, before: EVENT, after: null, touched: [], atMs: Date.parse('2026-12-01T00:00:00Z') });
  assert.deepEqual(JSON.parse(deleted[0]!.body), { type: 'event.deleted', timestamp: '2026-12-01T00:00:00.000Z', data: { id: EVENT.id } });
});

/** The event in `status` (API.md §14), written at `seq`. */
function withStatus(status: 'draft' | 'pending' | 'published' | 'cancelled', seq: number): ReturnType<typeof toStored> {
  const record: EventRecord = { ...RECORD, ...(status === 'published' ? {} : { status }) };
  return toStored(record, seq, viewJson(record), Date.parse(RECORD.created_at) + seq);
}

test('messagesOf follows the public view (API.md §14): a draft is silent; published at last, event.created; published ↔ cancelled, event.updated with the status; hidden again, event.deleted', () => {
  const draft = withStatus('draft', 1);
  const types = (before: ReturnType<typeof toStored> | undefined, after: ReturnType<typeof toStored>, seq: number): string[] => messagesOf({ record: { seq, op: 'put', stored: after }, before, after, touched: [], atMs: 0 }).map((m) => m.type);
  assert.deepEqual(types(undefined, draft, 1), [], 'a new draft');
  assert.deepEqual(types(draft, withStatus('pending', 2), 2), [], 'submitted for approval');
  const published = withStatus('published', 3);
  assert.deepEqual(types(withStatus('pending', 2), published, 3), ['event.created'], 'approved: its first publication');
  const cancelled = withStatus('cancelled', 4);
  const update = messagesOf({ record: { seq: 4, op: 'put', stored: cancelled }, before: published, after: cancelled, touched: [], atMs: 0 });
  assert.deepEqual(update.map((m) => [m.type, JSON.parse(m.body).data.status]), [['event.updated', 'cancelled']]);
  const restore = messagesOf({ record: { seq: 5, op: 'put', stored: withStatus('published', 5) }, before: cancelled, after: withStatus('published', 5), touched: [], atMs: 0 });
  assert.deepEqual(restore.map((m) => [m.type, JSON.parse(m.body).data.status]), [['event.updated', 'published']], 'restored: the new status said, though a read leaves it out');
  assert.deepEqual(JSON.parse(restore[0]!.body).data, { ...JSON.parse(withStatus('published', 5).json), status: 'published' }, 'otherwise the event as read');
  assert.equal(JSON.parse(messagesOf({ record: { seq: 5, op: 'put', stored: withStatus('published', 5) }, before: published, after: withStatus('published', 5), touched: [], atMs: 0 })[0]!.body).data.status, undefined, 'an edit of a published event: as read');
  const hidden = messagesOf({ record: { seq: 6, op: 'put', stored: withStatus('pending', 6) }, before: cancelled, after: withStatus('pending', 6), touched: [], atMs: 0 });
  assert.deepEqual(hidden.map((m) => [m.type, m.data]), [['event.deleted', JSON.stringify({ id: EVENT.id })]], 'cancelled → pending: gone from public view');
  assert.deepEqual(types(withStatus('pending', 6), withStatus('published', 7), 7), ['event.created'], 'approved again: created again');
  assert.deepEqual(messagesOf({ record: { seq: 8, op: 'del', id: EVENT.id }, before: draft, after: null, touched: [], atMs: 0 }), [], "a draft's deletion");
  assert.deepEqual(messagesOf({ record: { seq: 9, op: 'cancel', eventId: EVENT.id, id: ANA.id, atMs: 0, promoted: [BEN.id] }, before: withStatus('pending', 6), after: undefined, touched: [ANA, BEN], atMs: 0 }), [], 'registrations of an event hidden again');
  assert.deepEqual(messagesOf({ record: { seq: 9, op: 'cancel', eventId: EVENT.id, id: BEN.id, atMs: 0, promoted: [] }, before: cancelled, after: undefined, touched: [BEN], atMs: 0 }).map((m) => m.type), ['registration.cancelled'], 'a cancelled event is public: its roster changes are told');
});

test('a message\'s id tells apart two writes given one seq (a folder restored from an older backup), and is the same for one message read again', () => {
  const other = toStored({ ...RECORD, id: 'evt_other000000000000', title: 'Another event' }, 1, undefined, Date.parse(RECORD.created_at));
  const [lost] = messagesOf({ record: { seq: 1, op: 'put', stored: EVENT }, before: undefined, after: EVENT, touched: [], atMs: 0 });
  const [after] = messagesOf({ record: { seq: 1, op: 'put', stored: other }, before: undefined, after: other, touched: [], atMs: 0 });
  const [again] = messagesOf({ record: { seq: 1, op: 'put', stored: EVENT }, before: undefined, after: EVENT, touched: [], atMs: 0 });
  assert.notEqual(after!.idIn('L'), lost!.idIn('L'));
  assert.equal(again!.idIn('L'), lost!.idIn('L'));
});
