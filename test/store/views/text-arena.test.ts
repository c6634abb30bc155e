// TextArena against a plain model (a list of the byte strings appended, a map of those interned) over seeded random
// strings: every length edge (varint headers, the copy and sampled-hash thresholds, chunk ends, the longest string),
// strings alike in their sampled ends but not in their middles, and enough interned strings to grow the table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_TEXT_BYTES, TextArena } from '../../../src/store/views/text-arena.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['ARENA_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const CHUNK = 1024 * 1024;
const LENGTHS = [0, 1, 2, 47, 48, 49, 95, 96, 97, 127, 128, 129, 255, 256, 257, 16383, 16384, 16385];

const headerSize = (length: number): number => (length < 0x80 ? 1 : length < 0x4000 ? 2 : 3);

/** The bytes the arena should report: strings packed into 1 MiB chunks, a string never spanning two. */
class BytesModel {
  chunks = 0;
  used = CHUNK;
  add(length: number): void {
    const size = headerSize(length) + length;
    if (this.used + size > CHUNK) {
      this.chunks++;
      this.used = 0;
    }
    this.used += size;
  }
  get bytes(): number {
    return this.chunks === 0 ? 0 : (this.chunks - 1) * CHUNK + this.used;
  }
}

function randomBytes(random: () => number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

/** `bytes` somewhere inside a larger buffer, so start and end are not 0 and its length. */
function embedded(random: () => number, bytes: Buffer): { from: Buffer; start: number; end: number } {
  const before = Math.floor(random() * 5);
  const from = Buffer.concat([randomBytes(random, before), bytes, randomBytes(random, Math.floor(random() * 5))]);
  return { from, start: before, end: before + bytes.length };
}

test(`append() and intern() give back every string as the model holds it (ARENA_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const arena = new TextArena();
  const model = new BytesModel();
  const appended: Array<[number, Buffer]> = [];
  const interned = new Map<string, number>();
  const pool: Buffer[] = [];
  assert.equal(arena.bytes, 0);
  for (let step = 0; step < 3000; step++) {
    const r = random();
    let bytes: Buffer;
    if (pool.length > 0 && r < 0.3) bytes = Buffer.from(pool[Math.floor(random() * pool.length)]!);
    else if (r < 0.45 && pool.length > 0) {
      // Same length and same first and last 48 bytes as one seen, one byte different in the middle.
      const like = pool[Math.floor(random() * pool.length)]!;
      bytes = Buffer.from(like);
      if (bytes.length > 0) bytes[Math.floor(random() * bytes.length)]! ^= 1 + Math.floor(random() * 255);
    } else {
      const length = random() < 0.5 ? LENGTHS[Math.floor(random() * LENGTHS.length)]! : Math.floor(random() * 300);
      bytes = randomBytes(random, length);
      if (random() < 0.3) bytes.fill(bytes[0] ?? 0, 0, Math.min(length, 5));
    }
    pool.push(bytes);
    const { from, start, end } = embedded(random, bytes);
    const key = bytes.toString('hex');
    const seen = interned.get(key);
    if (random() < 0.5 || seen !== undefined) {
      const ref = arena.intern(from, start, end);
      if (seen === undefined) {
        assert.ok(![...interned.values()].includes(ref), `a new string shares a reference (step ${step}, ARENA_SEED=${SEED})`);
        interned.set(key, ref);
        model.add(bytes.length);
        appended.push([ref, bytes]);
      } else assert.equal(ref, seen, `an interned string is stored again (step ${step}, ARENA_SEED=${SEED})`);
    } else {
      const ref = arena.append(from, start, end);
      model.add(bytes.length);
      appended.push([ref, bytes]);
    }
    assert.equal(arena.bytes, model.bytes, `bytes after step ${step} (ARENA_SEED=${SEED})`);
  }
  for (const [ref, bytes] of appended) {
    assert.equal(arena.text(ref, 'latin1'), bytes.toString('latin1'), `ref ${ref} (ARENA_SEED=${SEED})`);
    assert.equal(arena.text(ref), bytes.toString('utf8'), `ref ${ref} (ARENA_SEED=${SEED})`);
  }
  for (const [key, ref] of interned) assert.equal(arena.intern(Buffer.from(key, 'hex'), 0, key.length / 2), ref, `ARENA_SEED=${SEED}`);
});

test(`intern() finds each of 5,000 short strings again after the table has grown (ARENA_SEED=${SEED})`, () => {
  const random = mulberry32(SEED ^ 0xa7e);
  const arena = new TextArena();
  const refs = new Map<string, number>();
  for (let i = 0; i < 5000; i++) {
    const text = `${i.toString(36)}-${Math.floor(random() * 1e6)}`;
    const ref = arena.intern(Buffer.from(text), 0, text.length);
    assert.ok(!refs.has(text) || refs.get(text) === ref);
    refs.set(text, ref);
  }
  const before = arena.bytes;
  for (const [text, ref] of refs) {
    assert.equal(arena.intern(Buffer.from(`_${text}_`), 1, text.length + 1), ref, `${text} (ARENA_SEED=${SEED})`);
    assert.equal(arena.text(ref), text);
  }
  assert.equal(arena.bytes, before, 'finding a string again appends nothing');
});

test('strings fill chunks to the byte, the longest string fits, a longer one is refused', () => {
  const arena = new TextArena();
  const model = new BytesModel();
  const big = Buffer.alloc(MAX_TEXT_BYTES + 1, 0x61);
  big[0] = 0x62;
  big[MAX_TEXT_BYTES - 1] = 0x63;
  assert.equal(MAX_TEXT_BYTES, CHUNK - 8);
  assert.equal(arena.append(big, 0, MAX_TEXT_BYTES + 1), -1);
  assert.equal(arena.intern(big, 0, MAX_TEXT_BYTES + 1), -1);
  assert.equal(arena.bytes, 0);
  const refs: Array<[number, number, number]> = [];
  // Fill a chunk to exactly its end, then one byte more opens the next; the longest string still fits after it.
  for (const [start, end] of [[0, CHUNK - 3 - 200], [0, 198], [0, 1], [0, MAX_TEXT_BYTES], [1, 200]] as const) {
    const ref = arena.append(big, start, end);
    model.add(end - start);
    refs.push([ref, start, end]);
    assert.equal(arena.bytes, model.bytes, `${start}..${end}`);
  }
  assert.deepEqual(refs.map(([ref]) => ref), [0, CHUNK - 200, CHUNK, CHUNK + 2, 2 * CHUNK]);
  for (const [ref, start, end] of refs) assert.equal(arena.text(ref, 'latin1'), big.toString('latin1', start, end));
});

test('intern() tells apart strings whose 32-bit hashes collide, of the same length and of different lengths', () => {
  // Found by a birthday search over the arena's FNV-1a of length and bytes; equal hashes, different strings. The third
  // pair is a string and itself less its last byte (that byte solved for, FNV-1a's multiplier being invertible): the
  // shorter one's bytes all match the start of the longer, so only their lengths tell them apart.
  for (const [a, b] of [['ltzxxxxxxxxx', '21cdxxxxxxxx'], ['12fwyyyyyyyyy', '1k35xxxxxxxx'], ['o4qgj000;', 'o4qgj000']] as const) {
    for (const [first, second] of [[a, b], [b, a]] as const) {
      const arena = new TextArena();
      const refFirst = arena.intern(Buffer.from(first), 0, first.length);
      const refSecond = arena.intern(Buffer.from(second), 0, second.length);
      assert.equal(arena.work.comparisons, 1, `${first} and ${second} have one hash, so they are compared`);
      assert.notEqual(refSecond, refFirst, `${second} is not ${first}`);
      assert.equal(arena.text(refSecond), second);
      assert.equal(arena.intern(Buffer.from(first), 0, first.length), refFirst);
      assert.equal(arena.intern(Buffer.from(second), 0, second.length), refSecond);
    }
  }
});

test('a string whose header grows to 2 or 3 bytes opens a new chunk when header and bytes do not fit', () => {
  for (const [length, header] of [[127, 1], [128, 2], [16383, 2], [16384, 3]] as const) {
    for (const room of [header + length - 1, header + length]) {
      const arena = new TextArena();
      const filler = CHUNK - room;
      // The filler's own header: 3 bytes at these sizes.
      arena.append(Buffer.alloc(filler - 3), 0, filler - 3);
      assert.equal(arena.bytes, filler);
      const text = Buffer.alloc(length, 0x41 + (length % 26));
      const ref = arena.append(text, 0, length);
      assert.equal(ref, room === header + length ? filler : CHUNK, `length ${length} with ${room} bytes left`);
      assert.equal(arena.text(ref, 'latin1'), text.toString('latin1'));
    }
  }
});
