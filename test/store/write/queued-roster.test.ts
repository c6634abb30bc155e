// QueuedRoster against a model: seeded random changes queued over a committed Roster, committed to it a few at a time
// as the write queue commits batches (then pruned); after every step the queued roster answers every question as a
// plain list of the queued registrations does, and the committed one as the list of those committed. QUEUED_ROSTER_SEED=n replays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueuedRoster, type WorkingRoster } from '../../../src/store/write/queued-roster.js';
import { Roster, RosterError, type Registration, type RegistrationStatus, type RosterView } from '../../../src/store/views/roster.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['QUEUED_ROSTER_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

function registration(n: number, status: RegistrationStatus): Registration {
  return { id: `reg_${String(n).padStart(22, '0')}`, eventId: 'evt_0000000000000001', name: `P${n}`, email: `Person${n % 30}@Campus.EDU`, status, createdAt: '2030-01-01T00:00:00.000Z', checkedInAt: null, seq: n };
}

/** Every question a RosterView answers, asked of the roster and of the model (registrations in creation order). */
function assertSame(roster: RosterView, model: readonly Registration[], step: string): void {
  const of = (status: RegistrationStatus): Registration[] => model.filter((each) => each.status === status);
  assert.deepEqual([roster.size, roster.confirmed, roster.waitlisted], [model.length, of('confirmed').length, of('waitlisted').length], `${step}: size, confirmed, waitlisted`);
  assert.deepEqual([...roster.values()], model, `${step}: values in creation order`);
  for (const each of model) assert.deepEqual(roster.get(each.id), each, `${step}: get`);
  for (let n = 0; n < 30; n++) {
    const email = `person${n}@campus.edu`;
    assert.equal(roster.hasEmail(email.toUpperCase()), model.some((each) => each.email.toLowerCase() === email), `${step}: hasEmail ${email}`);
  }
  assert.deepEqual(roster.page('waitlisted', 1, 2), { registrations: of('waitlisted').slice(1, 3), total: of('waitlisted').length }, `${step}: page`);
  const waitlist = of('waitlisted').map((each) => each.id);
  for (const extra of [0, 1, 3, model.length + 5]) {
    assert.deepEqual(roster.nextToConfirm(of('confirmed').length + extra), waitlist.slice(0, extra), `${step}: nextToConfirm(confirmed + ${extra})`);
  }
}

/** One change: applied to the queued roster, later to the committed one; `ids` are the registrations it changes. */
interface Change {
  apply(roster: WorkingRoster): void;
  ids: readonly string[];
}

test(`QueuedRoster answers as the queued registrations do while its changes commit a few at a time (QUEUED_ROSTER_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let committed = new Roster();
  // The table replaces an event's roster when it empties and refills: the queued roster looks it up on every use.
  const queued = new QueuedRoster(() => committed);
  let queuedModel: Registration[] = [];
  let waiting: Change[] = [];
  let next = 1;
  /** Ids removed: some are added again (a Roster puts such a one last, as the newest; tests and embedders may reuse ids). */
  const removed: string[] = [];
  for (let step = 0; step < 800; step++) {
    const label = `step ${step} (seed ${SEED})`;
    const roll = random();
    let change: Change | undefined;
    if (roll < 0.35) {
      const fresh = registration(next++, random() < 0.5 ? 'confirmed' : 'waitlisted');
      const again = removed.length > 0 && random() < 0.4 ? removed.splice(Math.floor(random() * removed.length), 1)[0]! : undefined;
      const candidate = again === undefined ? fresh : { ...fresh, id: again };
      if (queuedModel.some((each) => each.email.toLowerCase() === candidate.email.toLowerCase())) assert.throws(() => queued.add(candidate), RosterError, label);
      else {
        change = { apply: (roster) => roster.add(candidate), ids: [candidate.id] };
        queuedModel.push(candidate);
      }
    } else if (roll < 0.5 && queuedModel.length > 0) {
      const gone = pick(queuedModel);
      change = { apply: (roster) => void roster.remove(gone.id), ids: [gone.id] };
      queuedModel = queuedModel.filter((each) => each !== gone);
      removed.push(gone.id);
    } else if (roll < 0.62 && queuedModel.some((each) => each.status === 'waitlisted')) {
      const chosen = queuedModel.filter((each) => each.status === 'waitlisted' && random() < 0.5);
      change = { apply: (roster) => roster.confirm(chosen.map((each) => each.id)), ids: chosen.map((each) => each.id) };
      queuedModel = queuedModel.map((each) => (chosen.includes(each) ? { ...each, status: 'confirmed' } : each));
    } else if (roll < 0.72 && queuedModel.length > 0) {
      const chosen = pick(queuedModel);
      const when = `2030-01-0${1 + (step % 9)}T00:00:00.000Z`;
      if (chosen.status === 'waitlisted') assert.throws(() => queued.checkIn(chosen.id, when), RosterError, label);
      else {
        // A check-in of one already checked in changes nothing: the store writes no line for it.
        if (chosen.checkedInAt === null) change = { apply: (roster) => roster.checkIn(chosen.id, when), ids: [chosen.id] };
        if (chosen.checkedInAt === null) queuedModel = queuedModel.map((each) => (each === chosen ? { ...each, checkedInAt: when } : each));
      }
    } else if (roll < 0.78) {
      const missing = registration(next++, 'confirmed').id;
      assert.throws(() => queued.remove(missing), RosterError, label);
      assert.throws(() => queued.confirm([missing]), RosterError, label);
    } else if (waiting.length > 0) {
      // A batch commits: its changes reach the committed roster (a fresh one when that one emptied), then the queued roster is told.
      const batch = waiting.splice(0, 1 + Math.floor(random() * waiting.length));
      for (const each of batch) {
        each.apply(committed);
        if (committed.size === 0 && random() < 0.5) committed = new Roster();
        queued.committed(each.ids);
      }
    }
    if (change !== undefined) {
      change.apply(queued);
      waiting.push(change);
    }
    assertSame(queued, queuedModel, `${label}: queued`);
    if (waiting.length === 0) {
      assertSame(committed, queuedModel, `${label}: committed, nothing queued`);
      assert.equal(queued.held, 0, `${label}: nothing queued, nothing held`);
    }
  }
  for (const each of waiting) {
    each.apply(committed);
    queued.committed(each.ids);
  }
  waiting = [];
  assertSame(committed, queuedModel, 'at the end: committed');
  assertSame(queued, queuedModel, 'at the end: queued');
  assert.equal(queued.held, 0, 'every change durable: the queued roster holds nothing of its own');
});

test('QueuedRoster: changes queued leave the committed roster as it was', () => {
  const committed = new Roster();
  committed.add(registration(1, 'confirmed'));
  committed.add(registration(2, 'waitlisted'));
  const queued = new QueuedRoster(() => committed);
  queued.remove(registration(1, 'confirmed').id);
  queued.confirm([registration(2, 'waitlisted').id]);
  queued.add(registration(3, 'waitlisted'));
  assert.deepEqual([...committed.values()].map((r) => `${r.seq}:${r.status}`), ['1:confirmed', '2:waitlisted']);
  assert.equal(committed.hasEmail('p3@campus.edu'), false);
  assert.deepEqual([...queued.values()].map((r) => `${r.seq}:${r.status}`), ['2:confirmed', '3:waitlisted']);
  assert.deepEqual([queued.confirmed, queued.waitlisted, queued.size, queued.nextToConfirm(2)], [1, 1, 2, [registration(3, 'waitlisted').id]]);
});
