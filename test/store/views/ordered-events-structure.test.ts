// OrderedEvents' structure: invariants after every single step through merges, merge-then-split and branch merges of a
// three-level tree; no aliasing of the caller's array; an end_date window read without walking it; checkInvariants failing.
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
function stored(n: number, startMs: number, endMs: number): StoredEvent {
  return { id: `evt_${String(n).padStart(16, '0')}`, startMs, endMs, category: CATEGORIES[0], organizerEmail: 'a@b.example', createdAt: '2026-01-01T00:00:00.000Z', modifiedMs: 0, seq: 1, json: '{}' };
}

/** `count` one-hour events, one an hour, in list order. */
function hourly(count: number, from = 0): StoredEvent[] {
  return Array.from({ length: count }, (_, i) => stored(from + i, BASE + (from + i) * HOUR, BASE + (from + i + 1) * HOUR));
}

function assertHolds(tree: OrderedEvents, model: readonly StoredEvent[], what: string): void {
  checkInvariants(tree);
  assert.equal(tree.size, model.length, `${what}: size`);
  const all = tree.toArray();
  assert.equal(all.length, model.length, `${what}: toArray`);
  for (let i = 0; i < model.length; i++) if (all[i] !== model[i]) assert.fail(`${what}: event ${i} is ${all[i]?.id}, expected ${model[i]!.id}`);
}

test('a three-level tree stays valid after every single delete and insert: leaf and branch merges, and merges that split again', () => {
  const seed = Number(process.env['TREE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const random = mulberry32(seed);
  // 48 per leaf and 48 leaves per branch in a bulk load: 5,000 events make three levels.
  let model = hourly(5000);
  const tree = new OrderedEvents(model);
  assertHolds(tree, model, 'bulk');
  // Fill a neighbour past 49, then empty the node beside it: the merge overflows and splits again.
  const extra = Array.from({ length: 40 }, (_, i) => stored(100_000 + i, BASE + 60 * HOUR + i, BASE + 61 * HOUR));
  for (const event of extra) {
    tree.insert(event);
    model = [...model, event].sort(compareEvents);
    assertHolds(tree, model, `seed ${seed}: insert ${event.id}`);
  }
  // Then delete a long run from the middle, one at a time, first events of nodes included, down to a few hundred:
  // leaves merge, branches lose children and merge, the root loses a level.
  let deleted = 0;
  while (model.length > 300) {
    const at = Math.min(model.length - 1, Math.floor(model.length / 3 + (random() - 0.5) * 200));
    const [gone] = model.splice(at, 1);
    assert.equal(tree.delete(gone!), true);
    assert.equal(tree.delete(gone!), false, 'a second delete finds nothing');
    if (++deleted % 5 === 0 || model.length < 400) assertHolds(tree, model, `seed ${seed}: delete ${deleted}`);
    else checkInvariants(tree);
  }
  // From the front and from the back: the first child of each branch loses its first event, merges rightwards.
  for (let n = 0; n < 150; n++) {
    for (const gone of [model.shift()!, model.pop()!]) assert.equal(tree.delete(gone), true);
    assertHolds(tree, model, `seed ${seed}: from the ends, ${n}`);
  }
  assertHolds(tree, model, `seed ${seed}: end`);
});

test('the tree keeps no reference to the array it was built from, nor hands one out', () => {
  for (const count of [10, 64, 200]) {
    const events = hourly(count);
    const tree = new OrderedEvents(events);
    const copy = events.slice();
    events.pop();
    events.push(stored(999_999, BASE - HOUR, BASE));
    assert.deepEqual(tree.toArray(), copy, `${count}: the caller's changes do not reach the tree`);
    tree.insert(stored(888_888, BASE - 2 * HOUR, BASE));
    assert.equal(events.length, count, `${count}: the tree's changes do not reach the caller`);
    tree.toArray().pop();
    assert.equal(tree.size, count + 1);
    checkInvariants(tree);
  }
});

test('ranksEndingAfter() skips the subtrees that end in time: it reads a few hundred events of 20,000, not the window', (t) => {
  // Every 50th of the first 2,000 runs past the end of them all: their subtrees end late but start too early.
  const events = hourly(20_000).map((event, i) => (i < 2000 && i % 50 === 0 ? { ...event, endMs: BASE + 30_000 * HOUR } : event));
  let reads = 0;
  const counted = events.map((event) => {
    const copy = { ...event };
    Object.defineProperty(copy, 'startMs', { get: () => (reads++, event.startMs), enumerable: true });
    Object.defineProperty(copy, 'endMs', { get: () => (reads++, event.endMs), enumerable: true });
    return copy as StoredEvent;
  });
  const tree = new OrderedEvents(counted);
  reads = 0;
  // A window of 3,000 hours with 15,000 after it: only the event running at its end bound ends after it.
  const fromMs = BASE + 2000 * HOUR;
  const endByMs = BASE + 5_000 * HOUR + HOUR / 2;
  assert.deepEqual(tree.ranksEndingAfter(fromMs, endByMs), [5_000]);
  assert.ok(reads < 400, `read the start or end of events ${reads} times`);
  t.diagnostic(`ranksEndingAfter read a start or an end ${reads} times`);
  // And the answers agree with a walk, for windows all over.
  for (const [from, to] of [[0, 19_999], [5_000.5, 5_001.5], [19_998, 30_000], [-5, 0.5]] as const) {
    const expected = events.flatMap((event, rank) => (event.startMs >= BASE + from * HOUR && event.startMs <= BASE + to * HOUR && event.endMs > BASE + to * HOUR ? [rank] : []));
    assert.deepEqual(tree.ranksEndingAfter(BASE + from * HOUR, BASE + to * HOUR), expected, `${from}–${to}`);
  }
});

test('checkInvariants() throws for a tree built from events out of list order', () => {
  const events = hourly(100).reverse();
  assert.throws(() => checkInvariants(new OrderedEvents(events)), /out of list order/);
  assert.throws(() => checkInvariants(new OrderedEvents(hourly(10).reverse())), /out of list order/);
});

test('two branches merge and split again when the small one falls under 16 children beside one of more than 48', () => {
  const seed = Number(process.env['TREE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const random = mulberry32(seed);
  // 4,608 events: 96 leaves of 48 under two branches of 48 leaves each.
  let model = hourly(4608);
  const tree = new OrderedEvents(model);
  // Grow the right branch to 58 leaves: 17 more events in ten of its leaves split each of them.
  for (let leaf = 0; leaf < 10; leaf++) {
    for (let k = 0; k < 17; k++) {
      const event = stored(200_000 + leaf * 17 + k, BASE + (2400 + leaf * 192) * HOUR + k + 1, BASE + (2401 + leaf * 192) * HOUR);
      tree.insert(event);
      model.push(event);
    }
  }
  model.sort(compareEvents);
  assertHolds(tree, model, `seed ${seed}: grown`);
  // Empty the left branch in random order: on the way it falls under 16 leaves and merges into more than 64, which split.
  const left = model.filter((event) => event.startMs < BASE + 2304 * HOUR);
  for (let deleted = 1; left.length > 0; deleted++) {
    const [gone] = left.splice(Math.floor(random() * left.length), 1);
    assert.equal(tree.delete(gone!), true);
    model.splice(model.indexOf(gone!), 1);
    if (deleted % 4 === 0 || left.length < 200) assertHolds(tree, model, `seed ${seed}: delete ${deleted}`);
  }
  assertHolds(tree, model, `seed ${seed}: merged and split`);
});

test('checkInvariants() throws for a tree holding the same event twice', () => {
  const events = hourly(10);
  assert.throws(() => checkInvariants(new OrderedEvents([...events.slice(0, 5), events[4]!, ...events.slice(5)])), /out of list order/);
});

test('ranksEndingAfter() reads nothing below the root when every event ends exactly at the end bound', () => {
  // 5,000 events ending at the same instant: none ends after it, and a subtree whose latest end equals the bound is skipped whole.
  const endByMs = BASE + 6000 * HOUR;
  let reads = 0;
  const events = hourly(5000).map((event) => {
    const copy = { ...event, endMs: endByMs };
    Object.defineProperty(copy, 'startMs', { get: () => (reads++, event.startMs), enumerable: true });
    return copy as StoredEvent;
  });
  const tree = new OrderedEvents(events);
  reads = 0;
  assert.deepEqual(tree.ranksEndingAfter(BASE, endByMs), []);
  assert.equal(reads, 0, `read a start ${reads} times`);
  assert.deepEqual(tree.ranksEndingAfter(BASE, endByMs - 1), Array.from({ length: 5000 }, (_, rank) => rank), 'one ms earlier, every event ends after the bound');
});

test('slice() and sliceEndingBy() from a rank before the first, or past the last, give nothing', () => {
  for (const count of [10, 500]) {
    const tree = new OrderedEvents(hourly(count));
    assert.deepEqual(tree.slice(-1, 5), [], `${count}: slice(-1)`);
    assert.deepEqual(tree.sliceEndingBy(-1, 5, BASE + 10_000 * HOUR), [], `${count}: sliceEndingBy(-1)`);
    assert.deepEqual(tree.slice(count, 5), [], `${count}: slice(size)`);
    assert.deepEqual(tree.slice(count - 1, 5).length, 1, `${count}: slice(size - 1)`);
  }
});

test('ranksEndingAfter() finds events that start exactly at either bound, across leaves of one start time', () => {
  // 500 events with one start time fill several leaves: every separator starts at the bound itself.
  const startMs = BASE + 10 * HOUR;
  const events = Array.from({ length: 500 }, (_, n) => stored(n, startMs, startMs + 10 * HOUR));
  const tree = new OrderedEvents([...hourly(5), ...events, ...hourly(5, 1000)]);
  const all = Array.from({ length: 500 }, (_, k) => 5 + k);
  assert.deepEqual(tree.ranksEndingAfter(startMs, startMs + HOUR), all, 'starting at the window\'s first instant');
  assert.deepEqual(tree.ranksEndingAfter(startMs - HOUR, startMs), all, 'starting at its last instant');
  assert.deepEqual(tree.ranksEndingAfter(startMs + 1, startMs + HOUR), [], 'starting before the window');
  assert.equal(tree.countStartingBefore(startMs), 5);
  assert.equal(tree.countStartingBefore(startMs + 1), 505);
  assert.deepEqual(tree.slice(4, 3).map((event) => event.startMs), [BASE + 4 * HOUR, startMs, startMs]);
});

test('replace() puts a state where this very object was, lows on every level included, and refuses one not held', () => {
  const seed = Number(process.env['TREE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const random = mulberry32(seed);
  // 5,000 events make three levels: the first events of leaves and branches are lows one and two levels up.
  const model = hourly(5000);
  const tree = new OrderedEvents(model);
  const order = model.map((_, i) => i).sort(() => random() - 0.5);
  for (const [step, i] of order.entries()) {
    const before = model[i]!;
    const next = { ...before, seq: before.seq + 1 };
    assert.equal(tree.replace(before, next), true, `seed ${seed}: replace ${before.id}`);
    model[i] = next;
    if (step % 500 === 0 || i % 48 === 0) assertHolds(tree, model, `seed ${seed}: after replacing ${before.id}`);
  }
  assertHolds(tree, model, `seed ${seed}: every event replaced`);
  const stranger = stored(1, model[1]!.startMs, model[1]!.endMs);
  assert.equal(tree.replace(stranger, { ...stranger, seq: 9 }), false, 'an equal event that is not this very object');
  assertHolds(tree, model, 'after a refused replace');
});
