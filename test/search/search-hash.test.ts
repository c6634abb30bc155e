// The search index's hash helpers against obvious implementations: FNV-1a and murmur3's finish on BigInt, growing by
// copying by hand, and an open-addressing table whose every id is found by probing from its hash.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import v8 from 'node:v8';
import { finishHash, FNV_OFFSET, FNV_PRIME, grown, hashUnits, rehashed, scratch, TermList, useHashStart } from '../../src/search/search-hash.js';
import { BuildTerms } from '../../src/search/search-build-terms.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['SEARCH_HASH_SEED'] ?? Date.now() % 1_000_000);

/** FNV-1a over 32 bits from `start`, on BigInt: xor the unit in, multiply, keep the low 32 bits. */
function fnv1a(units: readonly number[], start: number): bigint {
  let hash = BigInt(start);
  for (const unit of units) hash = ((hash ^ BigInt(unit)) * 0x01000193n) & 0xffffffffn;
  return hash;
}

/** murmur3's 32-bit finish, on BigInt. */
function fmix32(hash: bigint): number {
  hash ^= hash >> 16n;
  hash = (hash * 0x85ebca6bn) & 0xffffffffn;
  hash ^= hash >> 13n;
  hash = (hash * 0xc2b2ae35n) & 0xffffffffn;
  return Number(hash ^ (hash >> 16n));
}

test('FNV-1a\'s multiplier is the published 32-bit prime; its start is a 32-bit number of this process', () => {
  assert.equal(FNV_PRIME, 16_777_619);
  assert.ok(Number.isInteger(FNV_OFFSET) && FNV_OFFSET >= 0 && FNV_OFFSET < 2 ** 32, String(FNV_OFFSET));
});

test('each process hashes from a start of its own, so no client can know where its words land in a table', () => {
  const startOf = (): string => execFileSync(process.execPath, ['--import', 'tsx', '-e', "import('./src/search/search-hash.ts').then((hash) => console.log(hash.FNV_OFFSET))"], { encoding: 'utf8' }).trim();
  const starts = new Set([startOf(), startOf(), startOf(), String(FNV_OFFSET)]);
  assert.equal(starts.size, 4, [...starts].join(', '));
});

test(`hashUnits() is 32-bit FNV-1a from the process's start of the first length units, finished by murmur3's mix, unsigned (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  assert.equal(hashUnits(new Uint16Array(4), 0), fmix32(BigInt(FNV_OFFSET)), 'nothing hashed: the start, finished');
  assert.equal(finishHash(0xe40c292c), fmix32(0xe40c292cn));
  for (let round = 0; round < 200; round++) {
    const units = Array.from({ length: Math.floor(random() * 12) }, () => Math.floor(random() * 65_536));
    const length = Math.floor(random() * (units.length + 1));
    const hash = hashUnits(Uint16Array.from([...units, 7, 9]), length);
    assert.equal(hash, fmix32(fnv1a(units.slice(0, length), FNV_OFFSET)), `seed ${SEED}, round ${round}: ${units} [0, ${length})`);
    assert.ok(hash >= 0 && Number.isInteger(hash), `seed ${SEED}: unsigned`);
  }
  const start = FNV_OFFSET;
  try {
    useHashStart(0x811c9dc5);
    // FNV-1a 32 of "foobar" (one unit a byte) is 0xbf9cf968, from the published offset basis.
    assert.equal(hashUnits(Uint16Array.from([...'foobar'].map((c) => c.charCodeAt(0))), 6), fmix32(0xbf9cf968n));
  } finally {
    useHashStart(start);
  }
});

test('4,096 words that plain FNV-1a puts in one place of a table whatever its start (their units differ only in bits 14 and 15) are spread out: probing stays short', () => {
  // FNV-1a's low k bits depend only on the low k bits of each unit, so with a table of 2^14 places or fewer these all
  // collide, and each new one walked past all the others (about 8 million probes).
  const terms = new BuildTerms();
  terms.startEvent();
  const units = new Uint16Array(6);
  for (let word = 0; word < 4096; word++) {
    for (let i = 0; i < 6; i++) units[i] = 0x4e00 + 0x61 + (((word >> (2 * i)) & 3) << 14) - 0x4000;
    assert.equal(terms.intern(units, 6, hashUnits(units, 6)), word);
  }
  assert.ok(terms.work.probes < 4 * 4096, `${terms.work.probes} probes for 4,096 words`);
});

test(`grown() copies into a larger array of the same type: at least the length asked, at least doubled (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (const Type of [Uint8Array, Uint16Array, Uint32Array, Int32Array, Float64Array]) {
    for (let round = 0; round < 20; round++) {
      const size = 1 + Math.floor(random() * 20);
      const array = new Type(size);
      for (let i = 0; i < size; i++) array[i] = 1 + Math.floor(random() * 200);
      const want = Math.floor(random() * 60);
      const copy = grown(array, want);
      assert.ok(copy instanceof Type, `seed ${SEED}: ${Type.name}`);
      assert.notEqual(copy, array);
      assert.equal(copy.length, Math.max(want, 2 * size), `seed ${SEED}: ${Type.name} of ${size} grown to ${want}`);
      assert.deepEqual([...copy.subarray(0, size)], [...array], `seed ${SEED}: elements kept`);
      assert.ok(copy.subarray(size).every((x) => x === 0), `seed ${SEED}: the rest is zero`);
    }
  }
});

test('scratch() is one shared buffer, long enough, replaced only when too short (and then at least doubled)', () => {
  const first = scratch(1);
  assert.ok(first.length >= 1);
  assert.equal(scratch(first.length), first, 'long enough: the same buffer');
  first[0] = 42;
  const longer = scratch(first.length + 1);
  assert.notEqual(longer, first);
  assert.equal(longer.length, 2 * first.length, 'one past the length: doubled');
  assert.equal(scratch(1), longer, 'then the longer one is the shared buffer');
  const huge = scratch(5 * longer.length);
  assert.equal(huge.length, 5 * longer.length, 'more than double asked: exactly what was asked');
});

test(`rehashed() places every id where probing from its hash finds it, two numbers a cell (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 100; round++) {
    const size = 2 ** (1 + Math.floor(random() * 6));
    const count = Math.floor(random() * (size + 1));
    // Few distinct low bits, so ids collide and wrap past the last cell.
    const hashes = Uint32Array.from({ length: count + 3 }, () => (Math.floor(random() * 4) * size + size - 1 - Math.floor(random() * 3)) >>> 0);
    const cells = rehashed(hashes, count, size);
    assert.equal(cells.length, 2 * size, `seed ${SEED}, round ${round}`);
    const seen = new Set<number>();
    for (let cell = 0; cell < size; cell++) {
      const id = cells[2 * cell + 1]!;
      if (id === 0) {
        assert.equal(cells[2 * cell], 0, `seed ${SEED}, round ${round}: an empty cell holds no hash`);
        continue;
      }
      assert.ok(id <= count, `seed ${SEED}, round ${round}: only ids below count`);
      assert.equal(cells[2 * cell], hashes[id - 1], `seed ${SEED}, round ${round}: cell ${cell} holds its id's hash`);
      seen.add(id - 1);
    }
    assert.equal(seen.size, count, `seed ${SEED}, round ${round}: every id placed once`);
    for (let id = 0; id < count; id++) {
      // Linear probing from the hash's cell reaches the id before any empty cell.
      let cell = hashes[id]! & (size - 1);
      let probes = 0;
      while (cells[2 * cell + 1] !== id + 1) {
        assert.notEqual(cells[2 * cell + 1], 0, `seed ${SEED}, round ${round}: id ${id} not reached from its hash`);
        cell = (cell + 1) % size;
        assert.ok(++probes <= size);
      }
    }
    // Ids placed in order: the first id whose hash lands on a free cell takes it.
    if (count > 0) assert.equal(cells[2 * (hashes[0]! & (size - 1)) + 1], 1, `seed ${SEED}, round ${round}: id 0 in its own cell`);
  }
});

test(`a TermList holds what was pushed, in order, grows past its buffer, and keeps its buffer when emptied (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const list = new TermList();
  for (let round = 0; round < 20; round++) {
    const pushed = Array.from({ length: Math.floor(random() * 300) }, () => Math.floor(random() * 2 ** 32));
    const before = list.ids;
    list.length = 0;
    for (const id of pushed) list.push(id);
    assert.equal(list.length, pushed.length, `seed ${SEED}, round ${round}`);
    assert.deepEqual([...list.ids.subarray(0, list.length)], pushed, `seed ${SEED}, round ${round}`);
    // Emptied and filled again within its buffer: the same buffer (an array would have dropped its store).
    if (pushed.length <= before.length) assert.equal(list.ids, before, `seed ${SEED}, round ${round}: the buffer was replaced`);
    else assert.ok(list.ids.length >= pushed.length && list.ids.length >= before.length * 2, `seed ${SEED}, round ${round}: grown at least double`);
  }
});

/** Bytes V8 allocated in its young generation while 1,000 rounds emptied `list` (length = 0) and pushed 40 ids onto it. */
function refillBytes(list: { length: number; push(id: number): unknown }): number {
  const used = (): number => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_used_size;
  const before = used();
  for (let round = 0; round < 1000; round++) {
    list.length = 0;
    for (let i = 0; i < 40; i++) list.push(i);
  }
  return used() - before;
}

test('a TermList emptied and refilled allocates nothing, where an array emptied by length = 0 allocates its store again each time', () => {
  // A young-generation collection during a run empties the space (the figure comes out negative): such a run is
  // measured again.
  const clean = (make: () => { length: number; push(id: number): unknown }): number => {
    let bytes = -1;
    for (let attempt = 0; attempt < 10 && bytes < 0; attempt++) bytes = refillBytes(make());
    return bytes;
  };
  const array = clean(() => []);
  assert.ok(array >= 100_000, `an emptied array should allocate its store again (saw ${array} bytes): the measure works`);
  const list = clean(() => new TermList());
  assert.ok(list >= 0 && list < 16_384, `a TermList allocated ${list} bytes over 1,000 refills`);
});
