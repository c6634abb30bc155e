// countWindowMatches against a plain count, and the work it does (events read, counted): a month the window covers
// whole is one AND of bitmaps (no event read), a month it covers in part is walked on its smaller side, and a window
// too narrow to gain from months is left to the caller's walk (undefined). An hourly campus, so the sides are plain.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type Category, type StoredEvent } from '../../../src/events/event.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { queryWords } from '../../../src/search/search-words.js';
import { SlotBitmap } from '../../../src/search/search-postings.js';
import { countWindowMatches } from '../../../src/store/views/window-count.js';
import { countedSources } from './counted-sources.js';
import { sampleRecord } from '../helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (month: number, day: number, hour = 0): number => Date.UTC(2027, month, day, hour);

/** Hourly from January to June 2027 (one to three hours long); July holds 3 events, August 1; `common` in 3 of 5. */
function campus(): StoredEvent[] {
  const starts: number[] = [];
  for (let start = at(0, 1); start < at(6, 1); start += HOUR) starts.push(start);
  starts.push(at(6, 3), at(6, 10, 5), at(6, 20), at(7, 15));
  return starts.map((start, i) => {
    const category: Category = CATEGORIES[i % 4]!;
    return toStored(sampleRecord(i + 1, { title: i % 5 < 3 ? 'common' : 'plain', category, start_time: new Date(start).toISOString(), end_time: new Date(start + (1 + (i % 3)) * HOUR).toISOString() }), i + 1);
  });
}

const events = campus();
const { sources, reads } = countedSources(events);
const search = sources.search!;
const matched = ((): SlotBitmap => {
  const found = search.match(queryWords('common'));
  assert.ok('bitmap' in found, 'a common word is a bitmap');
  return found.bitmap;
})();

/** The count and the events read to make it, checked against a plain count. */
function counted(categories: readonly Category[], startFromMs: number | undefined, endByMs: number | undefined): { count: number | undefined; work: number } {
  const tree = categories.length === 1 ? sources.tree(categories[0]!) : sources.all;
  const before = reads();
  const count = countWindowMatches({ tree, search, matched, categories, startFromMs, endByMs });
  const work = reads() - before;
  const plain = events.filter((stored) => JSON.parse(stored.json).title === 'common' && (categories.length === 0 || categories.includes(stored.category)) && (startFromMs === undefined || stored.startMs >= startFromMs) && (endByMs === undefined || stored.endMs <= endByMs)).length;
  if (count !== undefined) assert.equal(count, plain, JSON.stringify({ categories, startFromMs, endByMs }));
  return { count, work };
}

test('whole months are counted from bitmaps; a month covered in part is walked on its smaller side', () => {
  // February 2 to May 3: February less its first day (24 events walked), March and April whole, May's first 2 days (48).
  const wide = counted([], at(1, 2), at(4, 3) - 1);
  assert.notEqual(wide.count, undefined);
  assert.ok(wide.work <= 24 + 48 + 3, `read ${wide.work}`);
  // The same window for two categories: each month's bitmap ANDed with each category's.
  const two = counted(['academic', 'cultural'], at(1, 2), at(4, 3) - 1);
  assert.notEqual(two.count, undefined);
  assert.ok(two.work <= 24 + 48 + 3, `read ${two.work}`);
  // From the first of February with no end: every month whole, nothing walked; only July's 3 and August's 1 event
  // (short postings, not bitmaps) are looked at for their category.
  const open = counted(['social', 'athletic'], at(1, 1), undefined);
  assert.notEqual(open.count, undefined);
  assert.ok(open.work <= 4, `read ${open.work}`);
  // Only an end: every month before May whole, then May's first 10 days walked, then those running past the end.
  const ending = counted([], undefined, at(4, 11) - 1);
  assert.notEqual(ending.count, undefined);
  assert.ok(ending.work <= 240 + 3, `read ${ending.work}`);
});

test('the thin months (a list of slots, a single slot) and a window too narrow to gain from months', () => {
  // May to August whole: two bitmaps, then July's list of 3 slots and August's single slot, each event looked at once.
  const thin = counted(['academic', 'social', 'athletic', 'cultural'], at(4, 1), at(8, 1));
  assert.notEqual(thin.count, undefined);
  assert.ok(thin.work <= 4, `read ${thin.work}`);
  assert.equal(counted([], at(4, 1), at(8, 1)).work, 0, 'without categories no event is looked at');
  // Two days inside March: walking them is cheaper than any month, so the caller walks.
  assert.equal(counted([], at(2, 10), at(2, 12)).count, undefined);
  assert.equal(counted(['academic'], at(2, 10), at(2, 12)).count, undefined);
  // August alone (one event, a single slot): counting the month costs what walking it does, so the caller walks.
  assert.equal(counted([], at(7, 1), at(8, 1)).count, undefined);
  // Most of February: the whole month less the 2 days outside is cheaper than walking the 26 inside.
  const most = counted([], at(1, 2), at(1, 28) - 1);
  assert.notEqual(most.count, undefined);
  assert.ok(most.work <= 48 + 3, `read ${most.work}`);
  // A month on either side of the window's edges but no event of them inside: nothing counted twice, nothing missed.
  assert.notEqual(counted([], at(0, 1) - DAY, at(3, 1) + DAY).count, undefined);
});
