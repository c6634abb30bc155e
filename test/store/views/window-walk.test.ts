// walk() and walkCount() against filtering a plain array, over seeded random windows of a tree, across its 256-event chunks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type StoredEvent } from '../../../src/events/event.js';
import { OrderedEvents } from '../../../src/store/views/ordered-events.js';
import { walk, walkCount } from '../../../src/store/views/window-walk.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['WALK_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const HOUR = 3_600_000;

function stored(n: number): StoredEvent {
  const startMs = Date.UTC(2026, 8, 1) + n * HOUR;
  return { id: `evt_${String(n).padStart(16, '0')}`, startMs, endMs: startMs + HOUR, category: CATEGORIES[n % CATEGORIES.length]!, organizerEmail: 'a@b.example', createdAt: '2026-01-01T00:00:00.000Z', modifiedMs: 0, seq: n + 1, json: '{}' };
}

test(`walk() and walkCount() read a window of ranks as filtering the list would (WALK_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const events = Array.from({ length: 1500 }, (_, n) => stored(n));
  const tree = new OrderedEvents(events);
  for (let round = 0; round < 300; round++) {
    const from = below(events.length + 1);
    const to = from + below(events.length + 1 - from);
    // Tests that pass every event, none, or a share: a page then ends mid-chunk, at a chunk's end or past the window.
    const modulus = 1 + below(5);
    const passes = (event: StoredEvent): boolean => event.seq % modulus === 0;
    const skip = below(3) === 0 ? 0 : below(to - from + 2);
    const limit = 1 + below(below(2) === 0 ? 10 : 600);
    const matching = events.slice(from, to).filter(passes);
    const what = `seed ${SEED}, round ${round}: ranks [${from}, ${to}), every ${modulus}th, skip ${skip}, limit ${limit}`;
    assert.deepEqual(walk({ tree, from, to }, passes, skip, limit).map((event) => event.seq), matching.slice(skip, skip + limit).map((event) => event.seq), what);
    assert.equal(walkCount({ tree, from, to }, passes), matching.length, what);
  }
});

test('walk() stops at the window\'s end though the tree goes on, and at the limit inside a chunk', () => {
  const events = Array.from({ length: 600 }, (_, n) => stored(n));
  const tree = new OrderedEvents(events);
  const all = (): boolean => true;
  assert.deepEqual(walk({ tree, from: 10, to: 13 }, all, 0, 100).map((event) => event.seq), [11, 12, 13]);
  assert.deepEqual(walk({ tree, from: 250, to: 600 }, all, 3, 4).map((event) => event.seq), [254, 255, 256, 257]);
  assert.deepEqual(walk({ tree, from: 0, to: 600 }, all, 255, 2).map((event) => event.seq), [256, 257], 'a page across a chunk boundary');
  assert.deepEqual(walk({ tree, from: 5, to: 5 }, all, 0, 10), []);
  assert.equal(walkCount({ tree, from: 0, to: 257 }, all), 257);
  assert.equal(walkCount({ tree, from: 590, to: 600 }, all), 10);
});
