// OrderedEvents' shape and work: a node holds up to exactly 64 entries and is merged only under 16 (pinned through the
// entries per node, level by level), and an operation visits what it needs and no more (pinned by counting reads of
// the nodes' fields and of the events' times), so a mutant that builds another valid tree, or walks further for the
// same answer, fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type StoredEvent } from '../../../src/events/event.js';
import { OrderedEvents } from '../../../src/store/views/ordered-events.js';
import { checkInvariants, countNodeReads } from './ordered-events-check.js';

const HOUR = 3_600_000;
const BASE = Date.UTC(2026, 8, 1);

function stored(n: number, startMs: number, endMs: number): StoredEvent {
  return { id: `evt_${String(n).padStart(16, '0')}`, startMs, endMs, category: CATEGORIES[0], organizerEmail: 'a@b.example', createdAt: '2026-01-01T00:00:00.000Z', modifiedMs: 0, seq: 1, json: '{}' };
}

/** `count` one-hour events, one an hour, in list order. */
function hourly(count: number): StoredEvent[] {
  return Array.from({ length: count }, (_, i) => stored(i, BASE + i * HOUR, BASE + (i + 1) * HOUR));
}

/** An event that sorts right after hourly event `after` (the `k`-th such). */
const after = (after: number, k: number): StoredEvent => stored(1_000_000 + after * 100 + k, BASE + after * HOUR + k + 1, BASE + after * HOUR + HOUR / 2);

/** Events whose reads of startMs and endMs are counted. */
function counted(events: readonly StoredEvent[]): { events: StoredEvent[]; reads: { startMs: number; endMs: number } } {
  const reads = { startMs: 0, endMs: 0 };
  const wrapped = events.map((event) => {
    const copy = { ...event };
    Object.defineProperty(copy, 'startMs', { get: () => (reads.startMs++, event.startMs), enumerable: true });
    Object.defineProperty(copy, 'endMs', { get: () => (reads.endMs++, event.endMs), enumerable: true });
    return copy as StoredEvent;
  });
  return { events: wrapped, reads };
}

const shape = (tree: OrderedEvents): number[][] => checkInvariants(tree).levels;
const repeat = (value: number, times: number): number[] => Array.from({ length: times }, () => value);

test('a bulk load puts up to 64 events in one leaf, and 48 entries per node beyond', () => {
  assert.deepEqual(shape(new OrderedEvents(hourly(64))), [[64]]);
  assert.deepEqual(shape(new OrderedEvents(hourly(65))), [[2], [32, 33]]);
  assert.deepEqual(shape(new OrderedEvents(hourly(48 * 48))), [[48], repeat(48, 48)]);
  const levels = shape(new OrderedEvents(hourly(48 * 48 + 1)));
  assert.deepEqual(levels.slice(0, 2), [[2], [24, 25]]);
  assert.equal(levels[2]!.length, 49);
});

test('an insert splits a leaf only when it passes 64 events, and a branch only when it passes 64 children', () => {
  const leaf = new OrderedEvents(hourly(63));
  leaf.insert(after(10, 0));
  assert.deepEqual(shape(leaf), [[64]]);
  leaf.insert(after(10, 1));
  assert.deepEqual(shape(leaf), [[2], [32, 33]]);

  // 48 leaves of 48; 17 more events in each of the first 15 split them (65 = 32 + 33): 63 leaves.
  const branch = new OrderedEvents(hourly(48 * 48));
  for (let leaf = 0; leaf < 15; leaf++) for (let k = 0; k < 17; k++) branch.insert(after(leaf * 48, k));
  const split15 = Array.from({ length: 15 }, () => [32, 33]).flat();
  // 16 more in leaf 15 fill it to 64, one more splits it: 64 children.
  for (let k = 0; k < 16; k++) branch.insert(after(15 * 48, k));
  assert.deepEqual(shape(branch), [[63], [...split15, 64, ...repeat(48, 32)]]);
  branch.insert(after(15 * 48, 16));
  assert.deepEqual(shape(branch), [[64], [...split15, 32, 33, ...repeat(48, 32)]]);
  // 17 in leaf 16: 65 children, split into 32 and 33.
  for (let k = 0; k < 17; k++) branch.insert(after(16 * 48, k));
  assert.deepEqual(shape(branch), [[2], [32, 33], [...split15, 32, 33, 32, 33, ...repeat(48, 31)]]);
});

test('a leaf is merged only when it falls under 16 events, and the merge splits again only past 64', () => {
  // Three leaves of 48. Emptying the middle one: it keeps 16, and at 15 goes into its left neighbour.
  const events = hourly(144);
  const tree = new OrderedEvents(events);
  for (let n = 1; n <= 32; n++) {
    assert.equal(tree.delete(events[47 + n]!), true);
    assert.deepEqual(shape(tree), [[3], [48, 48 - n, 48]], `${n} deleted`);
  }
  tree.delete(events[80]!);
  assert.deepEqual(shape(tree), [[2], [63, 48]]);

  // The first leaf has no left neighbour: it takes in the one on its right.
  const first = new OrderedEvents(events);
  for (let n = 0; n < 33; n++) first.delete(events[n]!);
  assert.deepEqual(shape(first), [[2], [63, 48]]);

  // 49 + 15 = 64 stays one leaf; 64 + 15 = 79 splits into 39 and 40.
  for (const [grown, expected] of [[1, [[2], [64, 48]]], [16, [[3], [39, 40, 48]]]] as const) {
    const tree = new OrderedEvents(events);
    for (let k = 0; k < grown; k++) tree.insert(after(20, k));
    for (let n = 48; n < 48 + 33; n++) tree.delete(events[n]!);
    assert.deepEqual(shape(tree), expected, `leaf 0 grown by ${grown}`);
  }
});

test('a delete recomputes a latest end only when the event deleted held it', () => {
  const { events, reads } = counted(hourly(144));
  const tree = new OrderedEvents(events);
  const nodes = countNodeReads(tree);
  const deleteCounting = (event: StoredEvent): { endMs: number; maxEnd: number } => {
    reads.endMs = 0;
    nodes.reset();
    assert.equal(tree.delete(event), true);
    const work = { endMs: reads.endMs, maxEnd: nodes.of('maxEnd') };
    checkInvariants(tree);
    return work;
  };
  // Not the latest of its leaf: its end is compared with the root's and its leaf's latest end, and nothing is recomputed.
  assert.deepEqual(deleteCounting(events[60]!), { endMs: 2, maxEnd: 2 });
  // The latest of its leaf, not of the root: the leaf's 46 other events are read again, the root's children are not.
  assert.deepEqual(deleteCounting(events[95]!), { endMs: 2 + 46, maxEnd: 2 });
  // The latest of all: also the root reads the latest end of each of its 3 children.
  assert.deepEqual(deleteCounting(events[143]!), { endMs: 2 + 47, maxEnd: 2 + 3 });
});

test('slice() and sliceEndingBy() read the leaves they return events from, and no others', () => {
  // 20 leaves of 48 under the root. Counted: the root's size (read once, against the rank), and a leaf's items (once
  // for its size while finding the rank, then twice per event taken and once more per bound check) and next.
  const tree = new OrderedEvents(hourly(960));
  const nodes = countNodeReads(tree);
  const later = BASE + 2000 * HOUR;
  for (const read of [(from: number, count: number) => tree.slice(from, count), (from: number, count: number) => tree.sliceEndingBy(from, count, later)]) {
    const counting = (from: number, count: number): { first: string | undefined; taken: number; items: number; next: number; size: number } => {
      nodes.reset();
      const out = read(from, count);
      return { first: out[0]?.id, taken: out.length, items: nodes.of('items'), next: nodes.of('next'), size: nodes.of('size') };
    };
    const id = (n: number): string => `evt_${String(n).padStart(16, '0')}`;
    // Leaf 0 whole: its size, 49 bound checks and 48 events; one look at the next leaf, not a walk on.
    assert.deepEqual(counting(0, 48), { first: id(0), taken: 48, items: 1 + 49 + 48, next: 2, size: 1 });
    // The first event of leaf 1: the sizes of leaves 0 and 1 (not a look past the end of leaf 0).
    assert.deepEqual(counting(48, 1), { first: id(48), taken: 1, items: 2 + 2 + 1, next: 2, size: 1 });
    // The last event: the sizes of the 19 leaves before it, not the last one's, which the rank must be in.
    assert.deepEqual(counting(959, 5), { first: id(959), taken: 1, items: 19 + 2 + 1, next: 1, size: 1 });
    // Past the end: nothing below the root.
    assert.deepEqual(counting(960, 5), { first: undefined, taken: 0, items: 0, next: 0, size: 1 });
    // 200 from rank 100: leaves 2 to 6, 5 looks at a next leaf.
    assert.deepEqual(counting(100, 200), { first: id(100), taken: 200, items: 3 + 2 * 200 + 5, next: 10, size: 1 });
  }
});

test('sliceEndingBy() stops at the first event that starts at the end bound: none from there on ends by it', () => {
  // 20 hourly events, 50 starting together at the bound (ending an hour later), then 20 more.
  const bound = BASE + 20 * HOUR;
  const plain = [...hourly(20), ...Array.from({ length: 50 }, (_, k) => stored(100 + k, bound, bound + HOUR)), ...Array.from({ length: 20 }, (_, k) => stored(200 + k, bound + (k + 1) * HOUR, bound + (k + 2) * HOUR))];
  const { events, reads } = counted(plain);
  const tree = new OrderedEvents(events);
  reads.startMs = 0;
  reads.endMs = 0;
  assert.deepEqual(tree.sliceEndingBy(0, 100, bound), events.slice(0, 20));
  assert.deepEqual(reads, { startMs: 21, endMs: 20 });
  reads.startMs = 0;
  reads.endMs = 0;
  assert.deepEqual(tree.sliceEndingBy(5, 10, bound), events.slice(5, 15));
  assert.deepEqual(reads, { startMs: 10, endMs: 10 });
});
