// planRosterChange() and applyToRoster(): a registration change planned against the queued state changes nothing of
// it, and the working roster it leaves equals the committed roster the same record makes. A failure prints its seed:
// rerun with ROSTER_WRITE_SEED=n.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RosterDecision } from '../../../src/store/event-store.js';
import { DocumentTable } from '../../../src/store/views/document-table.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { PendingChanges } from '../../../src/store/write/pending-changes.js';
import { QueuedRoster } from '../../../src/store/write/queued-roster.js';
import type { RosterView } from '../../../src/store/views/roster.js';
import { RosterTable } from '../../../src/store/views/roster-table.js';
import { applyToRoster, planRosterChange } from '../../../src/store/write/roster-write.js';
import { seatsOf, toStored } from '../../../src/store/views/served-event.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord } from '../helpers.js';
import { registrationId } from '../views/roster-helpers.js';

const SEED = Number(process.env['ROSTER_WRITE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const NOW = Date.parse('2030-01-01T00:00:00.000Z');

function views(capacity: number) {
  const index = new EventIndex();
  const rosters = new RosterTable();
  index.put(toStored(sampleRecord(1, { capacity }), 1));
  const pending = new PendingChanges<object>({ index, rosters, documents: new DocumentTable(), now: () => NOW });
  return { index, rosters, pending };
}

/** Every registration of a roster in order, and its counts: what two rosters that answer alike share. */
function contents(roster: RosterView): unknown {
  return { registrations: [...roster.values()], confirmed: roster.confirmed, waitlisted: roster.waitlisted };
}

test(`applyToRoster() leaves a working roster equal to the committed one the same record makes, and planning changes nothing: 400 seeded changes (ROSTER_WRITE_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const { index, rosters, pending } = views(1 + Math.floor(random() * 4));
  const id = eventId(1);
  let seq = 2;
  let next = 0;
  const written = new Set<string>();
  for (let n = 0; n < 400; n++) {
    const all = [...rosters.get(id).values()];
    const ids = all.map((registration) => registration.id);
    // A check-in goes to a confirmed attendee not yet checked in half the time: picked among hundreds of registrations,
    // most of them cancelled or waitlisted, one may never be written (seed 1671068803 wrote none).
    const arriving = all.filter((registration) => registration.status === 'confirmed' && registration.checkedInAt === null).map((registration) => registration.id);
    const pick = (among = ids): string => (among.length === 0 || random() < 0.1 ? registrationId(999_999) : among[Math.floor(random() * among.length)]!);
    const roll = random();
    const decision: RosterDecision =
      roll < 0.5
        ? { op: 'register', registration: { id: registrationId(++next), name: `P ${next}`, email: `p${next}@x.edu` } }
        : roll < 0.75
          ? { op: 'cancel', id: pick() }
          : { op: 'checkIn', id: random() < 0.5 ? pick(arriving) : pick() };
    const before = contents(rosters.get(id));
    let planned;
    try {
      planned = planRosterChange(id, () => decision, seq, pending, {});
    } catch {
      assert.deepEqual(contents(rosters.get(id)), before, `change ${n} refused: ${JSON.stringify(decision)}`);
      continue;
    }
    assert.deepEqual(contents(rosters.get(id)), before, `planning change ${n} changed the roster: ${JSON.stringify(decision)}`);
    if ('answer' in planned) continue;
    assert.ok(planned.record.seq >= seq, `change ${n} writes at seq ${planned.record.seq}, below ${seq}`);
    const working = new QueuedRoster(() => rosters.get(id));
    applyToRoster(working, planned);
    const queued = contents(working);
    rosters.apply(planned.record);
    if (planned.state !== undefined) index.put(planned.state);
    assert.deepEqual(queued, contents(rosters.get(id)), `change ${n}: ${JSON.stringify(decision)}`);
    const event = index.get(id)!;
    assert.equal(seatsOf(event).registered, rosters.get(id).confirmed, `change ${n}: registered_count is the roster's`);
    assert.ok(rosters.get(id).confirmed <= seatsOf(event).capacity, `change ${n}: no more confirmed than seats`);
    written.add(decision.op);
    seq = planned.record.seq + 1;
  }
  assert.deepEqual([...written].sort(), ['cancel', 'checkIn', 'register'], 'every kind of change was written at least once');
});

test('planRosterChange() answers at once, with nothing to write, when the change decides nothing, and for a second check-in', () => {
  const { rosters, pending } = views(5);
  const id = eventId(1);
  const undecided = planRosterChange(id, () => undefined, 2, pending, {});
  assert.ok('answer' in undecided);
  assert.equal(undecided.answer.registration, undefined);
  assert.equal(undecided.answer.event?.id, id);
  const register = planRosterChange(id, () => ({ op: 'register', registration: { id: registrationId(1), name: 'A', email: 'a@x.edu' } }), 2, pending, {});
  assert.ok(!('answer' in register));
  rosters.apply(register.record);
  const checkIn = planRosterChange(id, () => ({ op: 'checkIn', id: registrationId(1) }), 4, pending, {});
  assert.ok(!('answer' in checkIn));
  assert.equal(checkIn.state, undefined, 'a check-in leaves registered_count, so the event keeps its state');
  rosters.apply(checkIn.record);
  const again = planRosterChange(id, () => ({ op: 'checkIn', id: registrationId(1) }), 5, pending, {});
  assert.ok('answer' in again);
  assert.equal(again.answer.registration?.checkedInAt, new Date(NOW).toISOString());
});
