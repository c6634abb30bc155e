// TextArena's work, not only its answers: cells probed and strings compared (arena.work) against a model of the table
// (FNV-1a of the length and the sampled bytes, linear probing, doubling past half full), so a worse hash, a skipped
// hash check or a table grown at another time is seen; the 32-bit limit (through a smaller one); and which strings
// are copied or compared with one Buffer call rather than byte by byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_CHUNKS, MAX_TEXT_BYTES, TextArena } from '../../../src/store/views/text-arena.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['ARENA_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const CHUNK = 1024 * 1024;
const PRIME = 0x01000193;

/** FNV-1a of the length, then of every byte of a string of up to 96 bytes, or of its first 48 and last 48. */
function fnv(bytes: Buffer): number {
  let hash = Math.imul(0x811c9dc5 ^ bytes.length, PRIME);
  const sampled = bytes.length <= 96 ? bytes : Buffer.concat([bytes.subarray(0, 48), bytes.subarray(bytes.length - 48)]);
  for (const byte of sampled) hash = Math.imul(hash ^ byte, PRIME);
  return hash >>> 0;
}

/** The table as documented: 4,096 cells to start, linear probing, doubling once more than half are in use. */
class TableModel {
  cells: Array<{ hash: number; key: string } | undefined> = new Array(4096);
  count = 0;
  work = { probes: 0, comparisons: 0 };

  /** Looks `bytes` up, counting; adds it when absent and `fits`. */
  intern(bytes: Buffer, fits = true): void {
    const hash = fnv(bytes);
    const key = bytes.toString('hex');
    const mask = this.cells.length - 1;
    let cell = hash & mask;
    for (let held = this.cells[cell]; held !== undefined; cell = (cell + 1) & mask, held = this.cells[cell]) {
      this.work.probes++;
      if (held.hash !== hash) continue;
      this.work.comparisons++;
      if (held.key === key) return;
    }
    if (!fits) return;
    this.cells[cell] = { hash, key };
    if (++this.count * 2 > this.cells.length) this.#grow();
  }

  #grow(): void {
    const old = this.cells;
    this.cells = new Array(old.length * 2);
    const mask = this.cells.length - 1;
    for (const held of old) {
      if (held === undefined) continue;
      let cell = held.hash & mask;
      for (; this.cells[cell] !== undefined; cell = (cell + 1) & mask) this.work.probes++;
      this.cells[cell] = held;
    }
  }
}

function randomBytes(random: () => number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

test(`intern() probes and compares exactly as the model of its table (ARENA_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const arena = new TextArena();
  const model = new TableModel();
  const pool: Buffer[] = [];
  for (let step = 0; step < 6000; step++) {
    const r = random();
    let bytes: Buffer;
    if (pool.length > 0 && r < 0.25) bytes = pool[Math.floor(random() * pool.length)]!;
    else if (pool.length > 0 && r < 0.5) {
      // One byte changed anywhere, or one byte more or fewer: inside the sampled ends of a long string or not.
      bytes = Buffer.from(pool[Math.floor(random() * pool.length)]!);
      if (random() < 0.2) bytes = random() < 0.5 ? Buffer.concat([bytes, Buffer.of(bytes[0] ?? 0)]) : bytes.subarray(1);
      else if (bytes.length > 0) bytes[Math.floor(random() * bytes.length)]! ^= 1 + Math.floor(random() * 255);
    } else {
      // Short and long; few distinct bytes in a short one, so strings alike everywhere but one place are common.
      const length = random() < 0.7 ? Math.floor(random() * 12) : 40 + Math.floor(random() * 200);
      bytes = random() < 0.5 ? randomBytes(random, length) : Buffer.from(Array.from({ length }, () => 0x61 + Math.floor(random() * 3)));
    }
    pool.push(bytes);
    const before = Math.floor(random() * 4);
    const from = Buffer.concat([randomBytes(random, before), bytes, randomBytes(random, 3)]);
    arena.intern(from, before, before + bytes.length);
    model.intern(bytes);
    assert.deepEqual(arena.work, model.work, `step ${step}, ${bytes.length} bytes (ARENA_SEED=${SEED})`);
    assert.equal(arena.tableCells, model.cells.length, `step ${step} (ARENA_SEED=${SEED})`);
  }
  assert.ok(model.cells.length >= 8192, 'the table grew at least once');
});

test('every byte of a string of up to 96 bytes, and its length, go into its hash: such strings are never compared', () => {
  const arena = new TextArena();
  const base = Buffer.alloc(96, 0x61);
  let interned = 0;
  // The same 96 bytes but one, at each place, to each of 20 values; and every prefix of them.
  for (let at = 0; at < 96; at++) {
    for (let value = 0x62; value < 0x62 + 20; value++) {
      const bytes = Buffer.from(base);
      bytes[at] = value;
      arena.intern(bytes, 0, 96);
      interned++;
    }
  }
  for (let length = 0; length <= 96; length++, interned++) arena.intern(base, 0, length);
  assert.equal(arena.work.comparisons, 0, `${interned} strings`);
  // Found again: one comparison each.
  for (let length = 0; length <= 96; length++) arena.intern(base, 0, length);
  assert.equal(arena.work.comparisons, 97);
});

test('a string longer than 96 bytes is hashed by its length and 48 bytes at each end: only a change between them is compared', () => {
  for (const length of [97, 200, 5000]) {
    const base = Buffer.alloc(length, 0x61);
    const changedAt = (at: number): Buffer => {
      const bytes = Buffer.from(base);
      bytes[at] = 0x62;
      return bytes;
    };
    const arena = new TextArena();
    arena.intern(base, 0, length);
    // A change in the first or last 48 bytes changes the hash: no comparison.
    for (const at of [0, 47, length - 48, length - 1]) arena.intern(changedAt(at), 0, length);
    assert.equal(arena.work.comparisons, 0, `${length} bytes, a change at the ends`);
    if (length > 96) {
      // Changes between them leave the hash: each new string is compared with every stored one of the same hash.
      const middle = [48, length - 49];
      for (const at of new Set(middle)) arena.intern(changedAt(at), 0, length);
      const expected = new Set(middle).size === 1 ? 1 : 1 + 2;
      assert.equal(arena.work.comparisons, expected, `${length} bytes, a change in the middle`);
    }
  }
});

test('the table doubles when more than half of its cells are in use; strings found again or refused take none', () => {
  const arena = new TextArena();
  const text = (n: number): Buffer => Buffer.from(`string ${n}`);
  const tooLong = Buffer.alloc(MAX_TEXT_BYTES + 1);
  assert.equal(arena.tableCells, 4096);
  for (let n = 0; n < 2048; n++) {
    const ref = arena.intern(text(n), 0, text(n).length);
    assert.equal(arena.intern(text(n), 0, text(n).length), ref);
    assert.equal(arena.intern(tooLong, 0, tooLong.length), -1);
  }
  assert.equal(arena.tableCells, 4096, '2,048 strings in 4,096 cells');
  arena.intern(text(2048), 0, text(2048).length);
  assert.equal(arena.tableCells, 8192, 'the 2,049th doubles the table');
});

test('an arena holds at most its limit of 1 MiB chunks (4,096: 4 GiB of 32-bit references), then refuses', () => {
  assert.equal(MAX_CHUNKS * CHUNK, 2 ** 32);
  const arena = new TextArena(2);
  const big = Buffer.alloc(MAX_TEXT_BYTES, 0x61);
  assert.equal(arena.append(big, 0, MAX_TEXT_BYTES), 0);
  assert.equal(arena.intern(big, 0, MAX_TEXT_BYTES - 1), CHUNK);
  const bytes = arena.bytes;
  // Both chunks are all but full: nothing more goes in, by append or intern, and nothing is kept of the attempt.
  assert.equal(arena.append(big, 0, 100), -1);
  assert.equal(arena.intern(big, 0, 100), -1);
  assert.equal(arena.intern(big, 0, 100), -1, 'a refused string is not found as interned');
  assert.equal(arena.bytes, bytes);
  // What fits in the room left still goes in.
  assert.equal(arena.append(big, 0, 1), CHUNK + 3 + MAX_TEXT_BYTES - 1);
  assert.equal(arena.text(CHUNK, 'latin1'), big.toString('latin1', 0, MAX_TEXT_BYTES - 1));
});

test('strings over 256 bytes are copied in with one Buffer#copy, and those over 48 compared with one Buffer#compare; shorter ones byte by byte', () => {
  const arena = new TextArena();
  for (const length of [0, 1, 48, 49, 256, 257, 1000]) {
    const calls = { copy: 0, compare: 0 };
    const from = Buffer.alloc(length + 2, 0x61 + (length % 26));
    // Spies on this buffer only: its own copy and compare, calling Buffer's.
    Object.assign(from, {
      copy: (...args: Parameters<Buffer['copy']>) => (calls.copy++, Buffer.prototype.copy.apply(from, args)),
      compare: (...args: Parameters<Buffer['compare']>) => (calls.compare++, Buffer.prototype.compare.apply(from, args)),
    });
    const ref = arena.intern(from, 1, length + 1);
    assert.equal(arena.intern(from, 1, length + 1), ref);
    assert.equal(arena.text(ref, 'latin1'), from.toString('latin1', 1, length + 1));
    assert.deepEqual(calls, { copy: length > 256 ? 1 : 0, compare: length > 48 ? 1 : 0 }, `${length} bytes`);
  }
});

test('growing the table moves each string once and looks at no empty cell, even with a string in the new cell 0', () => {
  // A string whose hash puts it in cell 0 of the 8,192-cell table, then 2,048 more: the last one doubles the table,
  // and that string, moved first, sits where a mistaken move of an empty cell (hash 0) would look.
  let zero = Buffer.alloc(0);
  for (let k = 0; (fnv(zero) & 8191) !== 0; k++) zero = Buffer.from(`zero ${k}`);
  const arena = new TextArena();
  const model = new TableModel();
  for (const bytes of [zero, ...Array.from({ length: 2048 }, (_, n) => Buffer.from(`string ${n}`))]) {
    arena.intern(bytes, 0, bytes.length);
    model.intern(bytes);
  }
  assert.equal(arena.tableCells, 8192);
  assert.deepEqual(arena.work, model.work);
});
