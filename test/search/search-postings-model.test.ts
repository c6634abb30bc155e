// Postings and SlotBitmap against a Set of slots over seeded random steps (POSTINGS_SEED=n replays one): the slots,
// the count, membership, and the form a posting takes (a bare slot, a sorted array, a bitmap) after every step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  lowerBound,
  type Posting,
  postingAdd,
  postingHas,
  postingOrInto,
  postingPushInto,
  postingRemove,
  postingSize,
  SlotBitmap,
} from '../../src/search/search-postings.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['POSTINGS_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

const ascending = (slots: Iterable<number>): number[] => [...slots].sort((a, b) => a - b);

/** The slots a posting holds, read back by pushing them out (sorted: a bitmap and an array both give them ascending). */
function slotsOf(posting: Posting | undefined): number[] {
  const out: number[] = [];
  if (posting !== undefined) postingPushInto(posting, out);
  return out;
}

/** The threshold of the bitmap form: 256 slots, or 1/64 of the slots in use when that is more. */
const bitmapAt = (capacity: number): number => Math.max(256, Math.floor(capacity / 64));

type Form = 'none' | 'number' | 'array' | 'bitmap';
const formOf = (posting: Posting | undefined): Form =>
  posting === undefined ? 'none' : typeof posting === 'number' ? 'number' : posting instanceof SlotBitmap ? 'bitmap' : Array.isArray(posting) ? 'array' : 'none';

test(`postingAdd/postingRemove hold the slots of a Set, in the form the sizes call for (POSTINGS_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  for (let round = 0; round < 6; round++) {
    // Capacities on both sides of 256 * 64, so the threshold is 256 in some rounds and more in others.
    const capacity = [500, 2_000, 16_384, 16_448, 20_000, 40_000][round]!;
    const threshold = bitmapAt(capacity);
    // Slots drawn from a range wider than the threshold, so postings cross it both ways: grown past it, shrunk to
    // nothing, twice, with noise (repeats, absent slots) all along.
    const range = Math.min(capacity, Math.floor(threshold * 1.5));
    let posting: Posting | undefined;
    let form: Form = 'none';
    const model = new Set<number>();
    /** The model's slots in a list too, to pick one at random. */
    const held: number[] = [];
    let growing = true;
    let cycles = 0;
    for (let step = 0; cycles < 2; step++) {
      const what = `seed ${SEED}, round ${round}, step ${step}`;
      const formBefore: Form = form;
      if (growing && model.size >= threshold + 10) growing = false;
      if (!growing && model.size === 0) [growing, cycles] = [true, cycles + 1];
      const slot = !growing && held.length > 0 && random() < 0.7 ? held[below(held.length)]! : below(range);
      if (random() < (growing ? 0.9 : 0.2)) {
        const had = model.has(slot);
        const before = posting;
        posting = postingAdd(posting, slot, capacity);
        if (!had) held.push(slot);
        model.add(slot);
        if (form === 'none') form = 'number';
        else if (form === 'number' && !had) form = 'array';
        if (form === 'array' && model.size >= threshold) form = 'bitmap';
        if (had) assert.equal(posting, before, `${what}: adding a slot held already returns the same posting`);
        if (Array.isArray(before) && Array.isArray(posting)) assert.equal(posting, before, `${what}: an array grows in place`);
      } else if (posting !== undefined) {
        const before = posting;
        posting = postingRemove(posting, slot, capacity);
        if (model.delete(slot)) {
          const at = held.indexOf(slot);
          held[at] = held[held.length - 1]!;
          held.pop();
        }
        if (form === 'bitmap' && model.size < threshold >>> 1) form = 'array';
        if (form !== 'bitmap') form = model.size === 0 ? 'none' : model.size === 1 ? 'number' : 'array';
        if (formOf(before) === formOf(posting) && typeof before === 'object') assert.equal(posting, before, `${what}: changed in place`);
      }
      assert.equal(formOf(posting), form, `${what}: form at ${model.size} slots (threshold ${threshold})`);
      // Every slot read back when few, or at a change of form; else now and then (reading 400 slots each step is slow).
      if (model.size < 8 || form !== formBefore || step % 16 === 0) assert.deepEqual(slotsOf(posting), ascending(model), `${what}: slots`);
      if (posting === undefined) continue;
      assert.equal(postingSize(posting), model.size, `${what}: size`);
      for (const probe of [held[below(held.length)]!, below(range + 64), below(range + 64)]) {
        assert.equal(postingHas(posting, probe), model.has(probe), `${what}: has ${probe}`);
      }
    }
  }
});

test('postingAdd() on one slot: the same slot stays a number, another makes a sorted pair', () => {
  assert.equal(postingAdd(undefined, 5, 10), 5);
  assert.equal(postingAdd(5, 5, 10), 5);
  assert.deepEqual(postingAdd(5, 9, 10), [5, 9]);
  assert.deepEqual(postingAdd(9, 5, 10), [5, 9]);
  assert.deepEqual(postingAdd(0, 1, 10), [0, 1]);
});

test('postingAdd() into the middle, the front and the end of an array keeps it sorted and the same array', () => {
  const posting = [10, 20, 30];
  assert.equal(postingAdd(posting, 15, 100), posting);
  assert.equal(postingAdd(posting, 5, 100), posting);
  assert.equal(postingAdd(posting, 40, 100), posting);
  assert.equal(postingAdd(posting, 20, 100), posting);
  assert.deepEqual(posting, [5, 10, 15, 20, 30, 40]);
});

test('postingRemove() of an absent slot leaves an array as it was; of the last but one leaves a bare slot', () => {
  assert.equal(postingRemove(4, 5, 10), 4);
  assert.equal(postingRemove(4, 4, 10), undefined);
  const posting = [1, 3];
  assert.equal(postingRemove(posting, 2, 10), posting);
  assert.deepEqual(posting, [1, 3]);
  assert.equal(postingRemove(posting, 3, 10), 1);
  assert.equal(postingRemove([1, 3], 1, 10), 3);
});

test('a packed run (Uint32Array) becomes an ordinary array on its first write, leaving the run untouched', () => {
  const run = new Uint32Array([2, 4, 6, 8]);
  assert.equal(postingSize(run), 4);
  assert.ok(postingHas(run, 6) && !postingHas(run, 5) && !postingHas(run, 9));
  assert.deepEqual(postingAdd(run, 5, 100), [2, 4, 5, 6, 8]);
  assert.deepEqual(postingAdd(run, 4, 100), [2, 4, 6, 8]);
  assert.ok(Array.isArray(postingAdd(run, 4, 100)));
  assert.deepEqual(postingRemove(run, 4, 100), [2, 6, 8]);
  assert.deepEqual(postingRemove(run, 3, 100), [2, 4, 6, 8]);
  assert.ok(Array.isArray(postingRemove(run, 3, 100)));
  assert.equal(postingRemove(new Uint32Array([2, 4]), 2, 100), 4);
  assert.deepEqual([...run], [2, 4, 6, 8]);
  const pushed: number[] = [];
  postingPushInto(run, pushed);
  assert.deepEqual(pushed, [2, 4, 6, 8]);
});

test('a bitmap that falls below half the threshold lists its slots ascending, a single one as a number, none as undefined', () => {
  const bitmap = new SlotBitmap(64);
  for (const slot of [40, 3, 63]) bitmap.add(slot);
  assert.deepEqual(postingRemove(bitmap, 3, 64), [40, 63]);
  const single = new SlotBitmap(64);
  single.add(7);
  single.add(9);
  assert.equal(postingRemove(single, 9, 64), 7);
  const last = new SlotBitmap(64);
  last.add(7);
  assert.equal(postingRemove(last, 7, 64), undefined);
  // At exactly half the threshold (128 of 256) it stays a bitmap.
  const half = new SlotBitmap(1000);
  for (let slot = 0; slot < 129; slot++) half.add(slot);
  assert.equal(postingRemove(half, 0, 1000), half);
  assert.equal(half.count, 128);
  assert.ok(Array.isArray(postingRemove(half, 1, 1000)));
});

test('an array becomes a bitmap exactly at the threshold: 256 slots, or capacity / 64 above 16,384', () => {
  const fill = (count: number, capacity: number): Posting => {
    let posting: Posting | undefined;
    for (let slot = count - 1; slot >= 0; slot--) posting = postingAdd(posting, slot, capacity);
    return posting!;
  };
  assert.ok(Array.isArray(fill(255, 1000)));
  assert.ok(fill(256, 1000) instanceof SlotBitmap);
  assert.ok(Array.isArray(fill(319, 64 * 320)));
  const bitmap = fill(320, 64 * 320 + 63);
  assert.ok(bitmap instanceof SlotBitmap);
  assert.equal(bitmap.count, 320);
  assert.equal(bitmap.words.length, Math.ceil((64 * 320 + 63) / 32), 'sized for the capacity, not the slots');
});

test(`SlotBitmap answers as a Set: add, remove, has, forEach, counts, intersections, copies (POSTINGS_SEED=${SEED})`, () => {
  const random = mulberry32(SEED + 1);
  const below = (n: number): number => Math.floor(random() * n);
  const ranges = [40, 100, 300, 1_000];
  const bitmaps = ranges.map((range) => new SlotBitmap(below(range)));
  const models = ranges.map(() => new Set<number>());
  for (let step = 0; step < 3_000; step++) {
    const what = `seed ${SEED}, step ${step}`;
    const at = below(bitmaps.length);
    const bitmap = bitmaps[at]!;
    const model = models[at]!;
    const slot = below(ranges[at]!);
    switch (below(9)) {
      case 0:
      case 1:
      case 2:
        bitmap.add(slot);
        model.add(slot);
        break;
      case 3:
      case 4:
        bitmap.remove(slot);
        model.delete(slot);
        break;
      case 5: {
        // A slot past the end of the words: removing it changes nothing.
        bitmap.remove(bitmap.words.length * 32 + below(64));
        break;
      }
      case 6: {
        const other = below(bitmaps.length);
        const expected = [...model].filter((each) => models[other]!.has(each)).length;
        assert.equal(bitmap.countShared(bitmaps[other]!), expected, `${what}: countShared`);
        assert.equal(bitmaps[other]!.countShared(bitmap), expected, `${what}: countShared the other way`);
        break;
      }
      case 7: {
        const others = [0, 1, 2, 3].filter(() => random() < 0.5).map((each) => bitmaps[each]!);
        const expected = [...model].filter((each) => others.every((other) => other.has(each))).length;
        assert.equal(bitmap.countSharedWithAll(others), expected, `${what}: countSharedWithAll`);
        break;
      }
      default: {
        const other = below(bitmaps.length);
        const copy = bitmap.copy();
        copy.intersect(bitmaps[other]!);
        const expected = [...model].filter((each) => models[other]!.has(each));
        assert.equal(copy.count, expected.length, `${what}: intersect count`);
        const visited: number[] = [];
        copy.forEach((each) => visited.push(each));
        assert.deepEqual(visited, ascending(expected), `${what}: intersect`);
        copy.add(ranges[at]! + 1);
        assert.ok(!bitmap.has(ranges[at]! + 1), `${what}: a copy is its own`);
      }
    }
    assert.equal(bitmap.count, model.size, `${what}: count`);
    const visited: number[] = [];
    bitmap.forEach((each) => visited.push(each));
    assert.deepEqual(visited, ascending(model), `${what}: forEach`);
    const probe = below(ranges[at]! + 100);
    assert.equal(bitmap.has(probe), model.has(probe), `${what}: has ${probe}`);
  }
});

test('SlotBitmap: sized in machine words for its capacity, grown by half at least, never shrunk', () => {
  assert.equal(new SlotBitmap().words.length, 0);
  assert.equal(new SlotBitmap(1).words.length, 1);
  assert.equal(new SlotBitmap(32).words.length, 1);
  assert.equal(new SlotBitmap(33).words.length, 2);
  const bitmap = new SlotBitmap(64);
  bitmap.add(5);
  bitmap.reserve(2);
  assert.equal(bitmap.words.length, 2, 'room already');
  bitmap.reserve(3);
  assert.equal(bitmap.words.length, 3, 'by half of 2 is 3');
  bitmap.reserve(4);
  assert.equal(bitmap.words.length, 5, 'by half of 3 is 4.5, rounded up');
  bitmap.reserve(20);
  assert.equal(bitmap.words.length, 20, 'more than half when asked');
  assert.ok(bitmap.has(5) && bitmap.count === 1, 'kept its bits');
  bitmap.add(32 * 25);
  assert.equal(bitmap.words.length, 30, 'adding past the end grows by half');
  assert.ok(!bitmap.has(32 * 30 + 3), 'past the end is empty');
  assert.ok(!new SlotBitmap().has(0));
  bitmap.add(31);
  assert.ok(bitmap.has(31) && !bitmap.has(30) && !bitmap.has(63));
});

test('SlotBitmap.recount() counts bits set in bulk, and postingOrInto() sets every slot of every form', () => {
  const into = new SlotBitmap(10);
  postingOrInto(3, into);
  postingOrInto([1, 3, 70], into);
  postingOrInto(new Uint32Array([2, 200]), into);
  const bitmap = new SlotBitmap(4096);
  for (const slot of [0, 31, 32, 4095]) bitmap.add(slot);
  postingOrInto(bitmap, into);
  assert.ok(into.words.length >= 128, 'room for the bitmap');
  into.recount();
  assert.equal(into.count, 9);
  const visited: number[] = [];
  into.forEach((slot) => visited.push(slot));
  assert.deepEqual(visited, [0, 1, 2, 3, 31, 32, 70, 200, 4095]);
  // A popcount of every bit pattern that matters: all ones, alternating, high bit alone.
  const full = new SlotBitmap();
  full.words = new Uint32Array([0xffffffff, 0xaaaaaaaa, 0x80000000, 0x0f0f0f0f, 0x01010101]);
  full.recount();
  assert.equal(full.count, 32 + 16 + 1 + 16 + 4);
  assert.equal(full.countShared(full), 69);
  assert.equal(full.countSharedWithAll([]), 69);
  assert.equal(full.countSharedWithAll([full, full]), 69);
});

test('lowerBound() finds the first place not below a value, for numbers and strings', () => {
  const numbers = [1, 3, 3, 5, 9];
  assert.deepEqual([0, 1, 2, 3, 4, 5, 9, 10].map((value) => lowerBound(numbers, value)), [0, 0, 1, 1, 3, 3, 4, 5]);
  assert.equal(lowerBound([], 4), 0);
  const strings = ['b', 'd', 'f'];
  assert.deepEqual(['a', 'b', 'c', 'f', 'g'].map((value) => lowerBound(strings, value)), [0, 0, 1, 2, 3]);
});
