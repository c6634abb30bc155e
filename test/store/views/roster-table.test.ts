// RosterTable against a plain model (per event, a list in creation order) over seeded random log records of every kind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredEvent } from '../../../src/events/event.js';
import type { LogRecord } from '../../../src/store/records/jsonl-record.js';
import { RosterError, type Registration } from '../../../src/store/views/roster.js';
import { RosterTable } from '../../../src/store/views/roster-table.js';
import { mulberry32 } from '../../helpers/random.js';
import { registrationId } from './roster-helpers.js';

const SEED = Number(process.env['ROSTER_TABLE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const EVENTS = ['evt_0000000000000000000A', 'evt_0000000000000000000B', 'evt_0000000000000000000C'];

function registration(n: number, eventId: string, status: Registration['status']): Registration {
  return { id: registrationId(n), eventId, name: `Person ${n}`, email: `p${n}@example.edu`, status, createdAt: '2026-01-01T00:00:00.000Z', checkedInAt: null, seq: n };
}

function put(seq: number, eventId: string, promoted?: string[]): LogRecord {
  const stored = { id: eventId, startMs: 0, endMs: 1, category: 'academic', organizerEmail: 'a@b.example', createdAt: '2026-01-01T00:00:00.000Z', modifiedMs: 0, seq, json: '{}' } as StoredEvent;
  return promoted === undefined ? { seq, op: 'put', stored } : { seq, op: 'put', stored, promoted };
}

type ModelRoster = Registration[];

const shown = (registrations: Iterable<Registration>): string[] => [...registrations].map((each) => `${each.id} ${each.status} ${each.checkedInAt ?? '-'}`);

test(`RosterTable.apply() keeps every roster and the registration count as a plain model does (ROSTER_TABLE_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const table = new RosterTable();
  const model = new Map<string, ModelRoster>();
  let seq = 0;
  for (let step = 0; step < 1500; step++) {
    const eventId = EVENTS[below(EVENTS.length)]!;
    const roster = model.get(eventId) ?? [];
    const waitlisted = roster.filter((each) => each.status === 'waitlisted');
    const confirmed = roster.filter((each) => each.status === 'confirmed');
    const choice = below(10);
    seq++;
    let record: LogRecord;
    if (choice < 4 || roster.length === 0) {
      const added = registration(seq, eventId, below(2) === 0 ? 'confirmed' : 'waitlisted');
      record = { seq, op: below(2) === 0 ? 'reg' : 'regstate', registration: added };
      model.set(eventId, [...roster, added]);
    } else if (choice < 6) {
      const gone = roster[below(roster.length)]!;
      const promoted = waitlisted.filter((each) => each !== gone).slice(0, below(3)).map((each) => each.id);
      record = { seq, op: 'cancel', eventId, id: gone.id, atMs: 0, promoted };
      const left = roster.filter((each) => each !== gone).map((each) => (promoted.includes(each.id) ? { ...each, status: 'confirmed' as const } : each));
      if (left.length === 0) model.delete(eventId);
      else model.set(eventId, left);
    } else if (choice < 8 && confirmed.length > 0) {
      const checked = confirmed[below(confirmed.length)]!;
      const at = `2026-02-0${1 + below(9)}T00:00:00.000Z`;
      record = { seq, op: 'checkin', eventId, id: checked.id, at };
      model.set(eventId, roster.map((each) => (each === checked && each.checkedInAt === null ? { ...each, checkedInAt: at } : each)));
    } else if (choice < 9) {
      const promoted = below(3) === 0 ? undefined : waitlisted.slice(0, below(3)).map((each) => each.id);
      record = put(seq, eventId, promoted);
      model.set(eventId, roster.map((each) => (promoted?.includes(each.id) ? { ...each, status: 'confirmed' as const } : each)));
    } else {
      record = { seq, op: 'del', id: eventId };
      model.delete(eventId);
    }
    table.apply(record);
    const what = `seed ${SEED}, step ${step}: ${JSON.stringify(record)}`;
    assert.equal(table.registrations, [...model.values()].reduce((sum, each) => sum + each.length, 0), `${what}: registrations`);
    assert.deepEqual([...table.entries()].map(([id]) => id).sort(), [...model.keys()].sort(), `${what}: events with a roster`);
    for (const id of EVENTS) {
      const expected = model.get(id) ?? [];
      const actual = table.get(id);
      assert.deepEqual(shown(actual.values()), shown(expected), `${what}: roster of ${id}`);
      assert.equal(actual.confirmed, expected.filter((each) => each.status === 'confirmed').length, `${what}: confirmed of ${id}`);
      assert.equal(actual.waitlisted, expected.filter((each) => each.status === 'waitlisted').length, `${what}: waitlisted of ${id}`);
    }
  }
});

test('RosterTable.apply() refuses a cancel, a check-in or a promotion for an event nobody registered for, and a second registration of an id', () => {
  const table = new RosterTable();
  const eventId = EVENTS[0]!;
  assert.throws(() => table.apply({ seq: 1, op: 'cancel', eventId, id: registrationId(1), atMs: 0, promoted: [] }), (error) => error instanceof RosterError && /evt_0000000000000000000A has no registrations/.test(error.message));
  assert.throws(() => table.apply({ seq: 1, op: 'checkin', eventId, id: registrationId(1), at: '2026-01-01T00:00:00.000Z' }), RosterError);
  assert.throws(() => table.apply(put(1, eventId, [registrationId(1)])), RosterError);
  table.apply(put(1, eventId, []));
  table.apply(put(2, eventId));
  table.apply({ seq: 3, op: 'del', id: eventId });
  assert.equal(table.registrations, 0);
  assert.deepEqual([...table.entries()], [], 'a put without promotions and a delete of an event without a roster make no roster');
  table.apply({ seq: 4, op: 'reg', registration: registration(4, eventId, 'confirmed') });
  assert.throws(() => table.apply({ seq: 5, op: 'regstate', registration: registration(4, eventId, 'confirmed') }), RosterError);
  // A line of another kind (a mark, a document) is the caller's mistake: refused by name, not ignored.
  assert.throws(() => table.apply({ seq: 6, op: 'mark', gone: 0 } as unknown as LogRecord), /no roster change for \{"seq":6,"op":"mark","gone":0\}/);
  assert.equal(table.registrations, 1);
});
