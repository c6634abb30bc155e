// listFiltered takes the cheaper way to count and to page (matches first, or the date window walked, or a bitmap
// count): the answers are the same either way, so what is pinned here is the work, counted (events read from the
// trees and from the search index), never timed, on an even campus where the cheaper way is plain to see.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type Category, type StoredEvent } from '../../../src/events/event.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { queryWords } from '../../../src/search/search-words.js';
import type { ListQuery } from '../../../src/store/event-store.js';
import { listFiltered } from '../../../src/store/views/filtered-list.js';
import { countedSources } from './counted-sources.js';
import { plainList } from './plain-list.js';
import { eventId, sampleRecord } from '../helpers.js';

const HOUR = 3_600_000;
const FIRST = Date.UTC(2027, 0, 1);
const COUNT = 2000;

/** Every 3 hours from 2027-01-01, an hour long; every 8th cultural; `common` in 3 of 5 titles, `xenon` in 1 of 100. */
function campus(): StoredEvent[] {
  return Array.from({ length: COUNT }, (_, i) => {
    const category: Category = i % 8 === 0 ? 'cultural' : CATEGORIES[i % 3]!;
    const title = [i % 5 < 3 ? 'common' : 'plain', i % 100 === 7 ? 'xenon' : 'other'].join(' ');
    const start = FIRST + i * 3 * HOUR;
    return toStored(sampleRecord(i + 1, { title, category, start_time: new Date(start).toISOString(), end_time: new Date(start + HOUR).toISOString() }), i + 1);
  });
}

const events = campus();
const entries = events.map((stored) => ({ stored, words: (JSON.parse(stored.json) as { title: string }).title.split(' ') }));
const { sources, reads } = countedSources(events);

/** The answer (checked against a plain filter) and the events read to give it. */
function listed(query: ListQuery): number {
  const before = reads();
  const answer = listFiltered(sources, query);
  const work = reads() - before;
  assert.deepEqual({ ids: answer.events.map((stored) => stored.id), total: answer.total }, plainList(entries, query), JSON.stringify(query));
  return work;
}

test('a rare word is counted and paged from its matches, not by walking the list', () => {
  // 20 matches among 2,000 events: reading the matches (twice: count, page) beats walking.
  assert.ok(listed({ words: queryWords('xenon'), limit: 5, page: 2 }) <= 40);
  assert.ok(listed({ words: queryWords('xenon'), categories: ['academic', 'social'], startFromMs: FIRST + 24 * HOUR, limit: 5, page: 1 }) <= 40);
});

test('a common word with no dates is counted from bitmaps, and its first page walked from the start', () => {
  // 1,200 matches: no event is read for the total; a page of 5 reads one chunk of the list (256 events).
  assert.equal(listed({ words: queryWords('common'), limit: 5, page: 1_000 }), 0, 'a page past the end reads nothing');
  assert.equal(listed({ words: queryWords('common'), categories: ['academic', 'cultural'], limit: 5, page: 10_000 }), 0);
  assert.ok(listed({ words: queryWords('common'), categories: ['academic', 'cultural'], limit: 5, page: 1 }) <= 256);
});

test('a common word over a narrow date window walks the window, not its 1,200 matches', () => {
  // Two days: 17 events start in it (the last ends after it).
  const window = { startFromMs: FIRST + 240 * HOUR, endByMs: FIRST + 288 * HOUR };
  assert.ok(listed({ words: queryWords('common'), ...window, limit: 5, page: 1 }) <= 2 * 17);
  assert.ok(listed({ words: queryWords('common'), categories: ['social', 'athletic'], ...window, limit: 50, page: 1 }) <= 2 * 17);
});

test('a list without words walks only its date window, in the one category\'s own tree, and not at all past the last page', () => {
  const window = { startFromMs: FIRST + 240 * HOUR, endByMs: FIRST + 288 * HOUR };
  assert.ok(listed({ categories: ['academic', 'social'], ...window, limit: 100, page: 1 }) <= 17);
  assert.equal(listed({ categories: ['academic', 'social'], ...window, limit: 100, page: 2 }), 0);
  // Exactly at the end: total 1,000 of academic, social or athletic… 250 cultural; page 26 of 10 starts at 250.
  assert.equal(listed({ categories: ['cultural'], limit: 10, page: 26 }), 0);
  // The 150th to 160th cultural events: read from the cultural tree (250 events), not from the whole list (2,000).
  assert.ok(listed({ categories: ['cultural'], limit: 10, page: 16 }) <= 256);
  assert.ok(listed({ words: queryWords('common'), categories: ['cultural'], startFromMs: FIRST, limit: 10, page: 10 }) <= 2 * 256);
});
