// MemoryStore beyond the shared contract: registrations, group writes and documents, remembered answers, history, and its clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seatsOf } from '../../../src/store/views/served-event.js';
import { toRecord } from '../../../src/events/event.js';
import { StoreUnavailable } from '../../../src/store/store-errors.js';
import { IDEMPOTENCY_TTL_MS } from '../../../src/store/views/idempotency-table.js';
import { MemoryStore } from '../../../src/store/memory/memory-store.js';
import type { CommittedChange } from '../../../src/store/views/change-history.js';
import { eventId, sampleRecord } from '../helpers.js';

const T = Date.parse('2031-05-01T10:00:00.000Z');
const reg = (n: number) => ({ id: `reg_${String(n).padStart(22, '0')}`, name: `P ${n}`, email: `p${n}@x.edu` });

test('MemoryStore: writes take the injected clock; registrations, rosters and counts go through its one queue', async () => {
  let now = T;
  const store = new MemoryStore({ now: () => now });
  const created = (await store.write(eventId(1), () => sampleRecord(1, { capacity: 1 })))!;
  assert.equal(created.modifiedMs, T);
  now = T + 5000;
  const first = await store.changeRegistrations(eventId(1), () => ({ op: 'register', registration: reg(1) }));
  const second = await store.changeRegistrations(eventId(1), () => ({ op: 'register', registration: reg(2) }));
  assert.equal(first.registration!.status, 'confirmed');
  assert.equal(first.registration!.createdAt, '2031-05-01T10:00:05.000Z');
  assert.equal(second.registration!.status, 'waitlisted');
  assert.equal(store.get(eventId(1)), first.event);
  assert.equal(store.get(eventId(1))!.modifiedMs, T + 5000);
  assert.equal(seatsOf(store.get(eventId(1))!).registered, 1);
  assert.deepEqual([...store.roster(eventId(1)).values()].map((r) => `${r.id.slice(-1)}:${r.status}`), ['1:confirmed', '2:waitlisted']);
  assert.equal(store.roster(eventId(9)).size, 0);
  assert.equal(store.size, 1);
  assert.deepEqual(store.list({ limit: 5, page: 1 }).events, [store.get(eventId(1))]);
  assert.equal(store.writable, true);
  await store.close();
  assert.equal(store.writable, false);
  await assert.rejects(store.changeRegistrations(eventId(1), () => ({ op: 'register', registration: reg(3) })), StoreUnavailable);
  await assert.rejects(store.writeGroup(() => ({ events: [{ id: eventId(2), record: { ...toRecord(store.get(eventId(1))!), id: eventId(2) } }], documents: [] })), StoreUnavailable);
  // A group that writes nothing answers as ever: nothing is refused that would not be written.
  assert.deepEqual(await store.writeGroup(() => ({ events: [], documents: [] })), { events: new Map(), documents: new Map() });
});

test('MemoryStore: a group write puts events and documents at once; document() and documents() read them back', async () => {
  const store = new MemoryStore({ now: () => T });
  const result = await store.writeGroup(() => ({
    events: [{ id: eventId(1), record: sampleRecord(1) }, { id: eventId(2), record: sampleRecord(2) }],
    documents: [{ collection: 'series', id: 's1', json: '{"n":1}' }, { collection: 'series', id: 's2', json: '{"n":2}' }],
  }));
  assert.deepEqual([...result.events.keys()], [eventId(1), eventId(2)]);
  assert.equal(store.size, 2);
  assert.deepEqual(store.document('series', 's1'), { collection: 'series', id: 's1', json: '{"n":1}', seq: 3 });
  assert.deepEqual(store.documents('series').map((d) => d.id).sort(), ['s1', 's2']);
  assert.equal(store.document('series', 's3'), undefined);
  assert.deepEqual(store.documents('other'), []);
  await store.writeGroup(() => ({ events: [{ id: eventId(2), record: null }], documents: [{ collection: 'series', id: 's1', json: null }] }));
  assert.equal(store.get(eventId(2)), undefined);
  assert.equal(store.document('series', 's1'), undefined);
  assert.deepEqual(store.changes.after(0, 10, 0).changes.map((c) => `${c.seq} ${c.id} ${c.event === null ? 'deleted' : 'live'}`), [`1 ${eventId(1)} live`, `5 ${eventId(2)} deleted`]);
  await store.close();
});

test('MemoryStore: an answer sent with an Idempotency-Key is remembered once durable, and counted for its API key', async () => {
  const store = new MemoryStore({ now: () => T });
  const idem = { key: 'k-1', keyId: 'key1', requestHash: 'h1' };
  assert.equal(store.rememberedAnswer('key1', 'k-1', T), undefined);
  assert.deepEqual(store.idempotencyUse('key1', T), { live: 0, oldestExpiresMs: undefined });
  const created = (await store.write(eventId(1), () => sampleRecord(1), { idem }))!;
  const entry = store.rememberedAnswer('key1', 'k-1', T + 1000);
  assert.deepEqual(entry, { ...idem, atMs: T, seq: created.seq, answer: { kind: 'event', view: created.json, createdAt: created.createdAt } });
  assert.equal(store.rememberedAnswer('key2', 'k-1', T), undefined);
  assert.deepEqual(store.idempotencyUse('key1', T), { live: 1, oldestExpiresMs: T + IDEMPOTENCY_TTL_MS });
  assert.deepEqual(store.idempotencyUse('key2', T), { live: 0, oldestExpiresMs: undefined });
  await store.close();
});

test('MemoryStore: history tells listeners each durable batch, reads nothing of the past, and its listeners can leave', async () => {
  const store = new MemoryStore({ now: () => T });
  const heard: CommittedChange[][] = [];
  const leave = store.history.subscribe((changes) => heard.push([...changes]));
  const created = (await store.write(eventId(1), () => sampleRecord(1)))!;
  assert.equal(heard.length, 1);
  assert.equal(heard[0]![0]!.after, created);
  assert.equal(heard[0]![0]!.before, undefined);
  assert.equal(heard[0]![0]!.atMs, T);
  assert.equal(leave(), true);
  await store.write(eventId(1), (current) => ({ ...toRecord(current!), title: 'Renamed' }));
  assert.equal(heard.length, 1, 'no longer heard once it left');
  assert.deepEqual(await store.history.readAfter(0), { changes: [], compactedThrough: 0 });
  const compacted: number[] = [];
  const stop = store.history.onCompacted((seq) => compacted.push(seq));
  assert.equal(stop(), true, 'a compaction listener is registered, and leaves');
  assert.deepEqual(compacted, []);
  await store.close();
});

test('MemoryStore without a clock uses the time of day', async () => {
  const store = new MemoryStore();
  const before = Date.now();
  const created = (await store.write(eventId(1), () => sampleRecord(1)))!;
  const after = Date.now();
  assert.ok(created.modifiedMs >= before && created.modifiedMs <= after, `${created.modifiedMs} within [${before}, ${after}]`);
  await store.close();
});
