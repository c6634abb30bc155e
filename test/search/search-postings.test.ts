// Postings: a bare slot, a sorted array, a bitmap past 1/64 of the slots (at least 256), and back below half of that.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Posting, postingAdd, postingHas, postingPushInto, postingRemove, postingSize, SlotBitmap } from '../../src/search/search-postings.js';

const slotsOf = (posting: Posting | undefined): number[] => {
  const out: number[] = [];
  if (posting !== undefined) postingPushInto(posting, out);
  return out;
};

test('postingAdd() goes from a bare slot to a sorted array to a bitmap at 256 slots, and postingRemove() back', () => {
  let posting: Posting | undefined = postingAdd(undefined, 7, 1000);
  assert.equal(posting, 7);
  posting = postingAdd(posting, 3, 1000);
  assert.deepEqual(posting, [3, 7]);
  assert.deepEqual(postingAdd(posting, 3, 1000), [3, 7], 'adding a slot twice changes nothing');
  for (let slot = 10; slot < 263; slot++) posting = postingAdd(posting, slot, 1000);
  assert.ok(Array.isArray(posting) && posting.length === 255);
  posting = postingAdd(posting, 500, 1000);
  assert.ok(posting instanceof SlotBitmap, 'the 256th slot makes a bitmap');
  assert.equal(postingSize(posting), 256);
  assert.ok(postingHas(posting, 500) && postingHas(posting, 3) && !postingHas(posting, 8));
  for (let slot = 10; slot < 138; slot++) posting = postingRemove(posting!, slot, 1000);
  assert.ok(posting instanceof SlotBitmap, 'still a bitmap at 128 slots');
  posting = postingRemove(posting!, 138, 1000);
  assert.ok(Array.isArray(posting), 'an array again below 128');
  assert.deepEqual(slotsOf(posting).slice(0, 3), [3, 7, 139]);
  for (const slot of slotsOf(posting)) posting = postingRemove(posting!, slot, 1000);
  assert.equal(posting, undefined);
});

test('SlotBitmap counts, intersects and visits slots in order across machine words', () => {
  const a = new SlotBitmap(10);
  const b = new SlotBitmap();
  for (const slot of [0, 31, 32, 63, 64, 1000]) a.add(slot);
  for (const slot of [31, 64, 999, 1000, 5000]) b.add(slot);
  assert.equal(a.count, 6);
  assert.equal(a.countShared(b), 3);
  const both = a.copy();
  both.intersect(b);
  const visited: number[] = [];
  both.forEach((slot) => visited.push(slot));
  assert.deepEqual(visited, [31, 64, 1000]);
  assert.equal(both.count, 3);
  assert.equal(a.count, 6, 'the copy is its own');
});
