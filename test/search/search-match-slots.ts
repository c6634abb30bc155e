// The slots of a WordMatcher answer as a sorted list, for the tests of search-match.
import assert from 'node:assert/strict';
import type { SlotSet } from '../../src/search/search-match.js';

/** The slots of `set`, ascending; a bitmap's own count must be their number. */
export function slotList(set: SlotSet): number[] {
  if ('slots' in set) return set.slots;
  const slots: number[] = [];
  set.bitmap.forEach((slot) => slots.push(slot));
  assert.equal(set.bitmap.count, slots.length, 'the bitmap counts its slots');
  return slots;
}
