// Roster against a model: seeded random adds, removes, confirmations and check-ins on several rosters; after every step
// each roster answers every question exactly as a plain list of its registrations does. ROSTER_SEED=n replays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REGISTRATION_ID_PATTERN, Roster, RosterError, emptyRoster, pageWork, type Registration, type RegistrationStatus } from '../../../src/store/views/roster.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['ROSTER_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

/** The model: the registrations in creation order; a replaced one keeps its place. */
type Model = Registration[];

function registration(n: number, status: RegistrationStatus): Registration {
  return { id: `reg_${String(n).padStart(22, '0')}`, eventId: 'evt_0000000000000001', name: `P${n}`, email: `Person${n % 40}@Campus.EDU`, status, createdAt: '2030-01-01T00:00:00.000Z', checkedInAt: null, seq: n };
}

/** A RosterError whose message names `what` (the registration or e-mail at fault). */
function rosterError(what: string): (error: unknown) => boolean {
  return (error) => error instanceof RosterError && error.name === 'RosterError' && error.message.includes(what);
}

/**
 * The registrations a page must look at: none past the end; else the list it walks (the waitlist for `waitlisted`,
 * everything otherwise, in creation order) up to its last match, or to the end when there are too few.
 */
function pageCost(model: Model, status: RegistrationStatus | undefined, offset: number, limit: number): number {
  const walked = status === 'waitlisted' ? model.filter((each) => each.status === 'waitlisted') : model;
  const matches = walked.filter((each) => status === undefined || each.status === status);
  if (offset >= matches.length) return 0;
  return offset + limit > matches.length ? walked.length : walked.indexOf(matches[offset + limit - 1]!) + 1;
}

/** Every question a RosterView answers, asked of the roster and of the model. */
function assertSame(roster: Roster, model: Model, step: string): void {
  const of = (status: RegistrationStatus): Registration[] => model.filter((each) => each.status === status);
  assert.equal(roster.size, model.length, `${step}: size`);
  assert.equal(roster.confirmed, of('confirmed').length, `${step}: confirmed`);
  assert.equal(roster.waitlisted, of('waitlisted').length, `${step}: waitlisted`);
  assert.deepEqual([...roster.values()], model, `${step}: values in creation order`);
  for (const each of model) {
    assert.deepEqual(roster.get(each.id), each, `${step}: get`);
    assert.ok(roster.hasEmail(each.email.toUpperCase()) && roster.hasEmail(each.email.toLowerCase()), `${step}: hasEmail ${each.email}`);
  }
  for (let n = 0; n < 40; n++) {
    const email = `person${n}@campus.edu`;
    assert.equal(roster.hasEmail(email), model.some((each) => each.email.toLowerCase() === email), `${step}: hasEmail ${email}`);
  }
  for (const status of [undefined, 'confirmed', 'waitlisted'] as const) {
    const all = status === undefined ? model : of(status);
    for (const [offset, limit] of [[0, 1], [0, 1000], [1, 2], [2, 3], [all.length - 1, 5], [all.length, 5], [all.length + 1, 1]] as const) {
      const expected = { registrations: all.slice(Math.max(0, offset), Math.max(0, offset) + limit), total: all.length };
      const before = pageWork.visited;
      assert.deepEqual(roster.page(status, Math.max(0, offset), limit), expected, `${step}: page(${status}, ${offset}, ${limit})`);
      assert.equal(pageWork.visited - before, pageCost(model, status, Math.max(0, offset), limit), `${step}: registrations page(${status}, ${offset}, ${limit}) looked at`);
    }
  }
  const waitlist = of('waitlisted').map((each) => each.id);
  for (const capacity of [0, of('confirmed').length, of('confirmed').length + 1, of('confirmed').length + 3, model.length + 5]) {
    assert.deepEqual(roster.nextToConfirm(capacity), waitlist.slice(0, Math.max(0, capacity - of('confirmed').length)), `${step}: nextToConfirm(${capacity})`);
  }
}

test(`Roster answers as a plain list does through 600 random steps on several rosters (ROSTER_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  // Several rosters at once: each goes its own way, and must never change another.
  const rosters: { roster: Roster; model: Model }[] = [{ roster: new Roster(), model: [] }];
  let next = 1;
  for (let step = 0; step < 600; step++) {
    const at = pick(rosters);
    const { roster, model } = at;
    const roll = random();
    const label = `step ${step} (seed ${SEED})`;
    if (roll < 0.35) {
      const candidate = registration(next++, random() < 0.5 ? 'confirmed' : 'waitlisted');
      const clash = model.some((each) => each.email.toLowerCase() === candidate.email.toLowerCase());
      if (clash) assert.throws(() => roster.add(candidate), rosterError(candidate.email), label);
      else {
        roster.add(candidate);
        model.push(candidate);
      }
    } else if (roll < 0.5 && model.length > 0) {
      const gone = pick(model);
      assert.deepEqual(roster.remove(gone.id), gone, label);
      model.splice(model.indexOf(gone), 1);
    } else if (roll < 0.65 && model.length > 0) {
      const chosen = model.filter(() => random() < 0.3);
      if (chosen.every((each) => each.status === 'waitlisted')) {
        roster.confirm(chosen.map((each) => each.id));
        for (const each of chosen) model[model.indexOf(each)] = { ...each, status: 'confirmed' };
      } else {
        assert.throws(() => roster.confirm(chosen.map((each) => each.id)), rosterError(chosen.find((each) => each.status !== 'waitlisted')!.id), label);
        // confirm() checks as it goes: the waitlisted ones before the first refused one were confirmed.
        for (const each of chosen) {
          if (each.status !== 'waitlisted') break;
          model[model.indexOf(each)] = { ...each, status: 'confirmed' };
        }
      }
    } else if (roll < 0.78 && model.length > 0) {
      const chosen = pick(model);
      const when = `2030-01-0${1 + (step % 9)}T00:00:00.000Z`;
      if (chosen.status === 'confirmed') {
        roster.checkIn(chosen.id, when);
        if (chosen.checkedInAt === null) model[model.indexOf(chosen)] = { ...chosen, checkedInAt: when };
      } else assert.throws(() => roster.checkIn(chosen.id, when), rosterError(chosen.id), label);
    } else if (roll < 0.86) {
      const missing = registration(next++, 'confirmed').id;
      assert.throws(() => roster.remove(missing), rosterError(missing), label);
      assert.throws(() => roster.confirm([missing]), rosterError(missing), label);
      assert.throws(() => roster.checkIn(missing, '2030-01-01T00:00:00.000Z'), rosterError(missing), label);
      if (model.length > 0) {
        const taken = pick(model);
        assert.throws(() => roster.add({ ...taken, email: 'someone-else@campus.edu' }), rosterError(taken.id), `${label}: a taken id`);
      }
    } else if (rosters.length < 6) {
      rosters.push({ roster: new Roster(), model: [] });
    }
    for (const each of rosters) assertSame(each.roster, each.model, label);
  }
});

test('the empty roster answers nothing, and REGISTRATION_ID_PATTERN is anchored at both ends', () => {
  const empty = emptyRoster();
  assert.deepEqual([empty.size, empty.confirmed, empty.waitlisted, empty.hasEmail('a@b'), empty.nextToConfirm(5)], [0, 0, 0, false, []]);
  assert.deepEqual(empty.page(undefined, 0, 10), { registrations: [], total: 0 });
  const id = `reg_${'0'.repeat(22)}`;
  assert.ok(REGISTRATION_ID_PATTERN.test(id));
  assert.ok(REGISTRATION_ID_PATTERN.test(`reg_${'a'.repeat(64)}`));
  for (const bad of [`x${id}`, `${id}!`, `${id}\n`, ` ${id}`, `reg_${'0'.repeat(21)}`, `reg_${'a'.repeat(65)}`, `Reg_${'0'.repeat(22)}`]) assert.equal(REGISTRATION_ID_PATTERN.test(bad), false, bad);
});
