// A model-based test of the file store: random event and registration changes, batched, compacted and reopened at random, checked against a plain model.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seatsOf } from '../../../src/store/views/served-event.js';
import { openFileStore } from '../../../src/store/file/open-file-store.js';
import type { FileStore } from '../../../src/store/file/file-store.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord, tempDir, TestFileSystem } from '../helpers.js';
import { invariantProblems, registrationId, visibleState } from '../views/roster-helpers.js';

const EVENTS = 4;
/** E-mails 0–5, each written in two cases: the same person for the store. */
const PEOPLE = 10;
const STEPS = 250;

interface ModelRegistration {
  id: string;
  email: string;
  status: 'confirmed' | 'waitlisted';
  checkedIn: boolean;
}

interface ModelEvent {
  capacity: number;
  title: string;
  /** In creation order. */
  registrations: ModelRegistration[];
}

/** The plain model of §8: what each change must do, or that it must be refused. */
class Model {
  readonly events = new Map<number, ModelEvent>();

  confirmed(event: ModelEvent): number {
    return event.registrations.filter((registration) => registration.status === 'confirmed').length;
  }

  /** Confirms the oldest waitlisted registrations while seats are free. */
  promote(event: ModelEvent): void {
    let free = event.capacity - this.confirmed(event);
    for (const registration of event.registrations) {
      if (free <= 0) break;
      if (registration.status === 'waitlisted') {
        registration.status = 'confirmed';
        free--;
      }
    }
  }
}

/** One random run; returns the number of changes the store accepted and refused, and how often it compacted and reopened. */
async function run(seed: number, dir: string): Promise<{ accepted: number; refused: number; compactions: number; reopens: number }> {
  const random = mulberry32(seed);
  const pick = (below: number): number => Math.floor(random() * below);
  let clock = Date.UTC(2026, 7, 1);
  const open = (): Promise<FileStore> =>
    openFileStore({ dataDir: dir, fs: new TestFileSystem({ noSync: true }), now: () => (clock += 3), compactMinBytes: 4096 });
  let store = await open();
  const model = new Model();
  let nextId = 0;
  const counts = { accepted: 0, refused: 0, compactions: 0, reopens: 0 };
  const refuse = (why: string): never => {
    throw new Error(why);
  };

  /** Issues one random change (not awaited); returns its promise and whether the model says it must be refused. */
  const issue = (step: number): { what: string; done: Promise<unknown>; refused: boolean } => {
    const n = 1 + pick(EVENTS);
    const id = eventId(n);
    const event = model.events.get(n);
    const roll = random();
    if (roll < 0.12) {
      const capacity = 1 + pick(4);
      if (event === undefined) model.events.set(n, { capacity, title: 'Event', registrations: [] });
      const done = store.write(id, (current) => (current === undefined ? sampleRecord(n, { capacity, title: 'Event' }) : refuse('exists')));
      return { what: `create ${n} capacity ${capacity}`, done, refused: event !== undefined };
    }
    if (roll < 0.24) {
      const capacity = 1 + pick(7);
      const title = pick(2) === 0 ? 'Event' : `Event at step ${step}`;
      const refused = event === undefined || capacity < model.confirmed(event);
      if (!refused) {
        Object.assign(event, { capacity, title });
        model.promote(event);
      }
      const done = store.write(id, (current) => {
        if (current === undefined) return refuse('no such event');
        // The handler's rule (API.md §5): capacity below registered_count is a conflict.
        if (capacity < seatsOf(current).registered) return refuse('capacity below registered_count');
        return { ...sampleRecord(n), title, capacity, registered_count: seatsOf(current).registered, created_at: current.createdAt };
      });
      return { what: `update ${n} capacity ${capacity}`, done, refused };
    }
    if (roll < 0.28) {
      if (event !== undefined) model.events.delete(n);
      const done = store.write(id, (current) => (current === undefined ? refuse('no such event') : null));
      return { what: `delete ${n}`, done, refused: event === undefined };
    }
    if (roll < 0.6) {
      const person = pick(PEOPLE);
      const email = pick(2) === 0 ? `person${person}@campus.example` : `Person${person}@Campus.Example`;
      const registration = registrationId(++nextId);
      const refused = event === undefined || event.registrations.some((each) => each.email === email.toLowerCase());
      if (!refused) {
        event.registrations.push({ id: registration, email: email.toLowerCase(), status: model.confirmed(event) < event.capacity ? 'confirmed' : 'waitlisted', checkedIn: false });
      }
      const done = store.changeRegistrations(id, (current, roster) => {
        if (current === undefined) return refuse('no such event');
        if (roster.hasEmail(email)) return refuse('e-mail taken');
        return { op: 'register', registration: { id: registration, name: `Person ${person}`, email } };
      });
      return { what: `register ${registration} (${email}) on ${n}`, done, refused };
    }
    // Cancel or check in an existing registration, or (one time in ten) an unknown one.
    const target = event === undefined || event.registrations.length === 0 || pick(10) === 0 ? undefined : event.registrations[pick(event.registrations.length)]!;
    const registration = target?.id ?? registrationId(999_999);
    if (roll < 0.8) {
      if (event !== undefined && target !== undefined) {
        event.registrations.splice(event.registrations.indexOf(target), 1);
        model.promote(event);
      }
      const done = store.changeRegistrations(id, (current, roster) => {
        if (current === undefined || roster.get(registration) === undefined) return refuse('unknown');
        return { op: 'cancel', id: registration };
      });
      return { what: `cancel ${registration} on ${n}`, done, refused: target === undefined };
    }
    const refused = target === undefined || target.status !== 'confirmed';
    if (!refused) target.checkedIn = true;
    const done = store.changeRegistrations(id, (current, roster) => {
      const found = current === undefined ? undefined : roster.get(registration);
      if (found === undefined) return refuse('unknown');
      if (found.status !== 'confirmed') return refuse('waitlisted');
      return { op: 'checkIn', id: registration };
    });
    return { what: `check in ${registration} on ${n}`, done, refused };
  };

  const compare = (context: string): void => {
    assert.equal(store.size, model.events.size, `${context}: live events`);
    for (let n = 1; n <= EVENTS; n++) {
      const event = model.events.get(n);
      const stored = store.get(eventId(n));
      const roster = [...store.roster(eventId(n)).values()].map((registration) => ({ id: registration.id, email: registration.email.toLowerCase(), status: registration.status, checkedIn: registration.checkedInAt !== null }));
      if (event === undefined) {
        assert.equal(stored, undefined, `${context}: event ${n} is deleted`);
        assert.deepEqual(roster, [], `${context}: a deleted event has no registrations`);
        continue;
      }
      assert.ok(stored !== undefined, `${context}: event ${n} is live`);
      assert.deepEqual(seatsOf(stored), { capacity: event.capacity, registered: model.confirmed(event) }, `${context}: event ${n}'s capacity and registered_count`);
      assert.ok(stored.json.includes(`"title":"${event.title}"`), `${context}: event ${n}'s title`);
      assert.deepEqual(roster, event.registrations, `${context}: event ${n}'s roster`);
    }
    assert.deepEqual(invariantProblems(store), [], context);
  };

  try {
    for (let step = 0; step < STEPS; step++) {
      const context = `seed ${seed}, step ${step}`;
      // A batch of changes issued together (they share a group commit), now and then with a compaction among them.
      const batch = Array.from({ length: 1 + pick(4) }, () => issue(step));
      let compaction: Promise<unknown> | undefined;
      if (random() < 0.08) {
        compaction = store.compact();
        batch.push(issue(step), issue(step));
        counts.compactions++;
      }
      const outcomes = await Promise.allSettled(batch.map((change) => change.done));
      await compaction;
      for (const [k, outcome] of outcomes.entries()) {
        const change = batch[k]!;
        if (outcome.status === 'rejected') {
          assert.ok(change.refused, `${context}: ${change.what} was refused (${String(outcome.reason)}), the model accepts it`);
          counts.refused++;
        } else {
          assert.ok(!change.refused, `${context}: ${change.what} was accepted, the model refuses it`);
          counts.accepted++;
        }
      }
      compare(context);
      if (random() < 0.06) {
        const before = visibleState(store);
        await store.close();
        store = await open();
        counts.reopens++;
        assert.deepEqual(visibleState(store), before, `${context}: a reopen finds the state as it was (seqs and times included)`);
      }
    }
  } finally {
    await store.close();
  }
  return counts;
}

test('FileStore against a model of §8: random creates, capacity changes, deletes, registrations, cancels and check-ins, batched, with compactions and reopens', async (t) => {
  const first = Number(process.env['MODEL_SEED'] ?? 20_261_123);
  for (const seed of [first, first + 1, first + 2]) {
    const counts = await run(seed, tempDir(t));
    t.diagnostic(`seed ${seed}: ${JSON.stringify(counts)}`);
    assert.ok(counts.accepted > STEPS && counts.refused > 10, `seed ${seed}: both outcomes happen (${JSON.stringify(counts)})`);
    assert.ok(counts.compactions > 0 && counts.reopens > 0, `seed ${seed}: it compacted and reopened (${JSON.stringify(counts)})`);
  }
});
