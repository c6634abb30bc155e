// TermsByKey against a Map over seeded random steps (KEY_CACHE_SEED=n replays one): a cache may forget, but what it
// answers is what was last set for that key; a key just set is found; the pool starts over exactly when full; keys
// as PackedEvent.searchTextKey makes them (table * 2^32 + an offset) mostly stay apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TermsByKey } from '../../src/search/search-key-cache.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['KEY_CACHE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
/** Term ids the pool holds in all, and the most one key may hold (a 16th of it). */
const POOL = 1 << 18;
const MAX_TERMS = POOL / 16;

const lookup = (cache: TermsByKey, key: number): number[] | undefined => {
  const out = [-7];
  return cache.pushInto(key, out) ? out.slice(1) : (assert.deepEqual(out, [-7], `a miss on ${key} pushes nothing`), undefined);
};

test(`TermsByKey answers what was last set for a key, or nothing; a key just set is found (KEY_CACHE_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const cache = new TermsByKey();
  const model = new Map<number, number[]>();
  // Keys as searchTextKey makes them: a table number above 2^32, an offset below; a few large ones too.
  const keys = Array.from({ length: 3_000 }, (_, n) => (n % 4) * 2 ** 32 + (n < 2_990 ? below(2 ** 20) * 8 : 2 ** 32 - 1 - n));
  let hits = 0;
  let lookups = 0;
  for (let step = 0; step < 6_000; step++) {
    const what = `seed ${SEED}, step ${step}`;
    const key = keys[below(keys.length)]!;
    if (random() < 0.5) {
      // Mostly a few terms; now and then many, so the pool fills and starts over several times in the run.
      const length = random() < 0.02 ? 2_000 + below(MAX_TERMS - 2_000) : below(40);
      const from = below(4);
      const terms = Array.from({ length: from + length }, () => below(2 ** 32));
      cache.set(key, terms, from);
      model.set(key, terms.slice(from));
      assert.deepEqual(lookup(cache, key), terms.slice(from), `${what}: a key just set is found`);
    } else {
      const found = lookup(cache, key);
      if (model.has(key)) lookups++;
      if (found === undefined) continue;
      hits++;
      assert.deepEqual(found, model.get(key), `${what}: the terms of ${key}`);
    }
  }
  // Most keys set are still there when looked up again (the pool starts over about twice in the run).
  assert.ok(hits > lookups / 4, `seed ${SEED}: ${hits} hits of ${lookups} lookups of keys set`);
});

test('TermsByKey: 2,000 keys of 4 tables with the same offsets stay apart (at least 1,800 of them found after all are set)', () => {
  const cache = new TermsByKey();
  const keys: number[] = [];
  for (let table = 0; table < 4; table++) for (let offset = 0; offset < 500; offset++) keys.push(table * 2 ** 32 + offset * 24);
  keys.forEach((key, n) => cache.set(key, [n, n + 1], 0));
  const found = keys.filter((key, n) => {
    const terms = lookup(cache, key);
    if (terms !== undefined) assert.deepEqual(terms, [n, n + 1]);
    return terms !== undefined;
  });
  assert.ok(found.length >= 1_800, `${found.length} of 2,000 found`);
  // Offsets one apart in one table, one offset in many tables: spread too.
  const dense = new TermsByKey();
  for (let n = 0; n < 1_000; n++) dense.set(n, [n], 0);
  assert.ok(Array.from({ length: 1_000 }, (_, n) => n).filter((n) => lookup(dense, n) !== undefined).length >= 900);
  const tables = new TermsByKey();
  for (let n = 0; n < 1_000; n++) tables.set(n * 2 ** 32 + 5, [n], 0);
  assert.ok(Array.from({ length: 1_000 }, (_, n) => n).filter((n) => lookup(tables, n * 2 ** 32 + 5) !== undefined).length >= 900);
  // Table and offset growing together (table n, offset n): neither part alone tells them apart.
  const diagonal = new TermsByKey();
  for (let n = 0; n < 1_000; n++) diagonal.set(n * 2 ** 32 + n, [n], 0);
  assert.ok(Array.from({ length: 1_000 }, (_, n) => n).filter((n) => lookup(diagonal, n * 2 ** 32 + n) !== undefined).length >= 900);
});

test('TermsByKey: an unknown key, key 0 and a key set with no terms', () => {
  const cache = new TermsByKey();
  assert.equal(lookup(cache, 0), undefined, 'empty: not even key 0');
  for (const key of [1, 12, 2 ** 32, 2 ** 40 + 3]) assert.equal(lookup(cache, key), undefined, `empty: not ${key}`);
  cache.set(0, [], 0);
  assert.deepEqual(lookup(cache, 0), []);
  cache.set(12, [1, 2, 3], 3);
  assert.deepEqual(lookup(cache, 12), []);
  cache.set(12, [4, 5, 6], 1);
  assert.deepEqual(lookup(cache, 12), [5, 6], 'set again: the new terms');
});

test('TermsByKey: a key holds up to 16,384 term ids; one more is not cached (and what it had is kept)', () => {
  const cache = new TermsByKey();
  const most = Array.from({ length: MAX_TERMS + 1 }, (_, n) => n);
  cache.set(1, most, 1);
  assert.equal(lookup(cache, 1)!.length, MAX_TERMS);
  cache.set(2, [9], 0);
  cache.set(2, most, 0);
  assert.deepEqual(lookup(cache, 2), [9], 'too many to cache: the old entry stays');
});

test('TermsByKey: the pool starts over only when a set would not fit: 16 full keys fit exactly, a 17th empties it', () => {
  const cache = new TermsByKey();
  const keys = Array.from({ length: 16 }, (_, n) => 100 + n * 7);
  keys.forEach((key, n) => cache.set(key, Array.from({ length: MAX_TERMS }, (_, at) => n * MAX_TERMS + at), 0));
  keys.forEach((key, n) => {
    const terms = lookup(cache, key);
    assert.ok(terms !== undefined, `key ${key} found`);
    assert.equal(terms.length, MAX_TERMS);
    assert.equal(terms[0], n * MAX_TERMS);
    assert.equal(terms[MAX_TERMS - 1], (n + 1) * MAX_TERMS - 1);
  });
  // A set of no terms fits in a full pool.
  cache.set(5, [], 0);
  assert.deepEqual(lookup(cache, 5), []);
  assert.ok(lookup(cache, keys[0]!) !== undefined, 'still there');
  // One more term does not: every key is forgotten, and the pool is used from its start again.
  cache.set(6, [42], 0);
  assert.deepEqual(lookup(cache, 6), [42]);
  for (const key of [...keys, 5, 1, 0]) assert.equal(lookup(cache, key), undefined, `key ${key} forgotten`);
  keys.forEach((key, n) => cache.set(key, [n], 0));
  keys.forEach((key, n) => assert.deepEqual(lookup(cache, key), [n]));
  assert.deepEqual(lookup(cache, 6), [42]);
});
