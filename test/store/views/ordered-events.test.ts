// OrderedEvents: a model-based test against a plain sorted array over thousands of seeded random steps, and the edges.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type StoredEvent } from '../../../src/events/event.js';
import { OrderedEvents } from '../../../src/store/views/ordered-events.js';
import { compareEvents } from '../../../src/store/views/sort-events.js';
import { checkInvariants } from './ordered-events-check.js';
import { mulberry32 } from '../../helpers/random.js';

const HOUR = 3_600_000;
const BASE = Date.UTC(2026, 8, 1);

/** A bare stored event: the tree reads only id, startMs and endMs. */
function stored(id: string, startMs: number, endMs: number): StoredEvent {
  return { id, startMs, endMs, category: CATEGORIES[0], organizerEmail: 'a@b.example', createdAt: '2026-01-01T00:00:00.000Z', modifiedMs: 0, seq: 1, json: '{}' };
}

/** The obvious implementation: a sorted array, filtered and counted by walking it (with plain loops: it runs for every mutant). */
class SortedArrayModel {
  items: StoredEvent[] = [];
  insert(event: StoredEvent): void {
    let at = this.items.length;
    while (at > 0 && compareEvents(this.items[at - 1]!, event) > 0) at--;
    this.items.splice(at, 0, event);
  }
  delete(event: StoredEvent): boolean {
    const at = this.items.indexOf(event);
    if (at === -1) return false;
    this.items.splice(at, 1);
    return true;
  }
  countStartingBefore(ms: number): number {
    let count = 0;
    for (const event of this.items) if (event.startMs < ms) count++;
    return count;
  }
  ranksEndingAfter(fromMs: number, endByMs: number): number[] {
    const ranks: number[] = [];
    for (let rank = 0; rank < this.items.length; rank++) {
      const event = this.items[rank]!;
      if (event.startMs >= fromMs && event.startMs <= endByMs && event.endMs > endByMs) ranks.push(rank);
    }
    return ranks;
  }
  sliceEndingBy(from: number, count: number, endByMs: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let rank = from; rank < this.items.length && out.length < count; rank++) {
      const event = this.items[rank]!;
      if (event.startMs > endByMs) break;
      if (event.endMs <= endByMs) out.push(event);
    }
    return out;
  }
}

const ids = (events: readonly StoredEvent[]): string[] => events.map((event) => event.id);

/** Runs `steps` random inserts, deletes and queries from `seed`, checking the tree against the model and its invariants after each. */
function runModel(seed: number, initial: number, steps: number): void {
  const random = mulberry32(seed);
  const below = (n: number): number => Math.floor(random() * n);
  let serial = 0;
  // Few distinct start times, so ties broken by id are common; some events last for weeks.
  const randomEvent = (): StoredEvent => {
    const start = BASE + below(400) * HOUR;
    const duration = below(10) === 0 ? below(24 * 40) * HOUR + 1 : (1 + below(4)) * HOUR;
    // Ids as the service makes them; ids alike in their first twelve characters (the tree's id keys hold those, the
    // rest is compared as strings); ids with characters past 255 and past the Latin-1 ones; short ids.
    const random = below(1e9).toString(36).padStart(8, '0');
    const forms = [`evt_${random}`, `evt_alike_id_${random.slice(0, 2)}`, `evt_${'ÿé\u4e00\u0101'[below(4)]}${random.slice(0, below(9))}`, random.slice(0, 1 + below(3))];
    return stored(`${forms[below(8) < 5 ? 0 : below(4)]}${String(serial++).padStart(8, '0')}`, start, start + duration);
  };
  const model = new SortedArrayModel();
  for (let i = 0; i < initial; i++) model.items.push(randomEvent());
  model.items.sort(compareEvents);
  const tree = new OrderedEvents(model.items.slice());
  const context = (step: number, what: string): string => `seed ${seed}, step ${step}: ${what}`;
  for (let step = 0; step < steps; step++) {
    // Grow in the first half, shrink in the second, so splits, merges and the root collapsing all happen.
    const growing = step < steps / 2;
    const roll = random();
    if (roll < (growing ? 0.6 : 0.25) || model.items.length === 0) {
      const event = randomEvent();
      tree.insert(event);
      model.insert(event);
    } else if (roll < 0.9) {
      const event = model.items[below(model.items.length)]!;
      assert.equal(tree.delete(event), true, context(step, `delete ${event.id}`));
      model.delete(event);
    } else {
      const stranger = randomEvent();
      assert.equal(tree.delete(stranger), false, context(step, 'delete of an event never inserted'));
    }
    assert.equal(tree.size, model.items.length, context(step, 'size'));
    if (step % 7 === 0) {
      checkInvariants(tree);
      assert.deepEqual(ids(tree.toArray()), ids(model.items), context(step, 'order'));
    }
    const fromMs = BASE + below(420) * HOUR - HOUR;
    const endByMs = fromMs + below(24 * 20) * HOUR;
    assert.equal(tree.countStartingBefore(fromMs), model.countStartingBefore(fromMs), context(step, `countStartingBefore(${fromMs})`));
    assert.deepEqual(tree.ranksEndingAfter(fromMs, endByMs), model.ranksEndingAfter(fromMs, endByMs), context(step, `ranksEndingAfter(${fromMs}, ${endByMs})`));
    const from = below(model.items.length + 2);
    const count = 1 + below(120);
    assert.deepEqual(ids(tree.slice(from, count)), ids(model.items.slice(from, from + count)), context(step, `slice(${from}, ${count})`));
    assert.deepEqual(ids(tree.sliceEndingBy(from, count, endByMs)), ids(model.sliceEndingBy(from, count, endByMs)), context(step, `sliceEndingBy(${from}, ${count}, ${endByMs})`));
  }
  checkInvariants(tree);
}

test('OrderedEvents agrees with a sorted array over thousands of random inserts, deletes and queries (model-based, seeded)', () => {
  runModel(1, 0, 6000);
  runModel(2, 2500, 4000);
  runModel(3, 5000, 3000);
});

test('OrderedEvents built in bulk holds every event in order, at every size around a node boundary', () => {
  for (const count of [0, 1, 63, 64, 65, 97, 3072, 3073, 150_000]) {
    const events = Array.from({ length: count }, (_, i) => stored(`evt_${String(i).padStart(16, '0')}`, BASE + Math.floor(i / 3) * HOUR, BASE + Math.floor(i / 3) * HOUR + 1));
    const tree = new OrderedEvents(events);
    checkInvariants(tree);
    assert.equal(tree.size, count);
    assert.deepEqual(ids(tree.slice(0, count)), ids(events), `${count} events`);
  }
});

test('OrderedEvents shrinks back to an empty root and grows again after every event is deleted', () => {
  const events = Array.from({ length: 5000 }, (_, i) => stored(`evt_${String(i).padStart(16, '0')}`, BASE + (i % 50) * HOUR, BASE + (i % 50) * HOUR + HOUR));
  const tree = new OrderedEvents();
  for (const event of events) tree.insert(event);
  checkInvariants(tree);
  for (const event of events) assert.equal(tree.delete(event), true);
  checkInvariants(tree);
  assert.equal(tree.size, 0);
  assert.deepEqual(tree.slice(0, 10), []);
  assert.equal(tree.countStartingBefore(BASE + 100 * HOUR), 0);
  assert.deepEqual(tree.ranksEndingAfter(0, BASE), []);
  tree.insert(events[0]!);
  assert.deepEqual(ids(tree.toArray()), [events[0]!.id]);
});

test('OrderedEvents.delete() removes only the very object held, not another with the same id and times', () => {
  const tree = new OrderedEvents();
  const held = stored('evt_0000000000000001', BASE, BASE + HOUR);
  tree.insert(held);
  assert.equal(tree.delete(stored('evt_0000000000000001', BASE, BASE + HOUR)), false);
  assert.equal(tree.size, 1);
  assert.equal(tree.delete(held), true);
});
