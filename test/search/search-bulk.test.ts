// BulkPostings and PostingTable against a model: the packed runs and bitmaps are exactly the slots added, relabelled
// and kept, in the documented form (a bitmap for a term in at least 256 slots and 1/64 of the capacity), packed a
// given number of events a step; the stream's chunks are filled to within a varint. `SEARCH_BULK_SEED=n` replays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postingAdd, postingPushInto } from '../../src/search/search-postings.js';
import { BulkPostings, DROPPED } from '../../src/search/search-bulk.js';
import { type PackedPostings, PostingTable } from '../../src/search/search-posting-table.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['SEARCH_BULK_SEED'] ?? Date.now() % 1_000_000);
const MAX_VARINT = 5;

interface Added {
  slot: number;
  terms: number[];
}

/** Bytes of `term + 1` as a varint (7 bits a byte). */
const varintBytes = (term: number): number => Math.max(1, Math.ceil(Math.log2(term + 2) / 7));

/** The chunks a stream of these events fills, each to within a varint of its end (`chunkBytes` each). */
function modelChunks(events: readonly Added[], chunkBytes: number): number {
  let chunks = 0;
  let offset = chunkBytes;
  for (const { terms } of events) {
    for (const term of new Set(terms)) {
      if (offset > chunkBytes - MAX_VARINT) [chunks, offset] = [chunks + 1, 0];
      offset += varintBytes(term);
    }
  }
  return chunks;
}

/** What packing must give: each term's new slots, as a run, or as a bitmap when frequent. */
function modelPacked(events: readonly Added[], relabel: Uint32Array | undefined, terms: number, capacity: number): { offsets: number[]; slots: number[]; bitmaps: Map<number, { words: number[]; count: number }> } {
  const held = new Map<number, number[]>();
  for (const { slot, terms: own } of events) {
    const to = relabel === undefined ? slot : relabel[slot]!;
    if (to === DROPPED) continue;
    for (const term of new Set(own)) held.set(term, [...(held.get(term) ?? []), to]);
  }
  const threshold = Math.max(256, Math.floor(capacity / 64));
  const offsets: number[] = [];
  const slots: number[] = [];
  const bitmaps = new Map<number, { words: number[]; count: number }>();
  for (let term = 0; term < terms; term++) {
    offsets.push(slots.length);
    const own = held.get(term) ?? [];
    if (own.length < threshold) slots.push(...own);
    else {
      const words = new Array<number>(Math.ceil(capacity / 32)).fill(0);
      for (const slot of own) words[slot >>> 5] = (words[slot >>> 5]! | (1 << (slot & 31))) >>> 0;
      bitmaps.set(term, { words, count: own.length });
    }
  }
  offsets.push(slots.length);
  return { offsets, slots, bitmaps };
}

function assertPacked(packed: PackedPostings, model: ReturnType<typeof modelPacked>, what: string): void {
  assert.deepEqual([...packed.offsets], model.offsets, `${what}: offsets`);
  assert.deepEqual([...packed.slots], model.slots, `${what}: runs`);
  assert.deepEqual([...packed.bitmaps.keys()].sort((a, b) => a - b), [...model.bitmaps.keys()], `${what}: the terms with a bitmap`);
  for (const [term, bitmap] of packed.bitmaps) {
    assert.deepEqual({ words: [...bitmap.words], count: bitmap.count }, model.bitmaps.get(term), `${what}: the bitmap of term ${term}`);
  }
}

/**
 * Adds `events` to a BulkPostings of `chunkBytes` chunks (checking how many it fills), relabels them (when given),
 * packs `step()` events a call: the call that reaches the last event gives the postings, and lets the stream go.
 */
function packInSteps(chunkBytes: number | undefined, events: readonly Added[], relabel: Uint32Array | undefined, terms: number, capacity: number, step: () => number): PackedPostings {
  const bulk = new BulkPostings(chunkBytes);
  for (const { slot, terms: own } of events) bulk.add(slot, own);
  assert.equal(bulk.chunks, modelChunks(events, chunkBytes ?? 2 ** 25), `the chunks of ${chunkBytes} bytes filled`);
  if (relabel !== undefined) bulk.relabel(relabel);
  for (let packed = 0; ; ) {
    const more = step();
    const done = bulk.packSome(terms, capacity, more);
    packed += more;
    if (packed >= events.length) {
      assert.ok(done !== undefined, `packed ${packed} events of ${events.length}: done`);
      assert.equal(bulk.chunks, 0, 'the stream is let go once packed');
      return done;
    }
    assert.equal(done, undefined, `packed ${packed} events of ${events.length}: not done yet`);
  }
}

test(`BulkPostings packs exactly the slots kept, as runs and bitmaps, a given number of events a step (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 24; round++) {
    const what = `seed ${SEED}, round ${round}`;
    const chunkBytes = 2 ** (3 + Math.floor(random() * 6));
    const count = 1 + Math.floor(random() * 1500);
    const termSpan = [40, 300, 3000, 20_000][round % 4]!;
    const events: Added[] = [];
    let slot = Math.floor(random() * 3);
    for (let event = 0; event < count; event++) {
      // Low terms often, high ones rarely; 127 and 16383 (the last ids of one- and two-byte varints); repeats; some events empty.
      const own: number[] = [];
      for (let n = Math.floor(random() * 9); n > 0; n--) own.push(random() < 0.1 ? [127, 128, 16383][Math.floor(random() * 3)]! % termSpan : Math.floor(termSpan * random() ** 3));
      if (own.length > 0 && random() < 0.3) own.push(own[0]!);
      events.push({ slot, terms: own });
      slot += 1 + Math.floor(random() * 3);
    }
    // Drop some events (a put replaced later) and move the rest to new ascending slots, or keep the slots as they are.
    let relabel: Uint32Array | undefined;
    let last = slot;
    if (round % 3 !== 0) {
      relabel = new Uint32Array(slot).fill(DROPPED);
      let next = Math.floor(random() * 2);
      for (const event of events) if (random() < 0.8) relabel[event.slot] = next += 1 + Math.floor(random() * 2);
      last = next + 1;
    }
    const terms = Math.max(0, ...events.flatMap((event) => event.terms)) + 1 + Math.floor(random() * 100);
    const capacity = last + Math.floor(random() * 100);
    const step = (): number => 1 + Math.floor(random() * (count / 3));
    const packed = packInSteps(chunkBytes, events, relabel, terms, capacity, step);
    assertPacked(packed, modelPacked(events, relabel, terms, capacity), what);
  }
});

test('a term is a bitmap from 256 slots, or from 1/64 of the capacity when that is more; relabelling moves terms across the bound', () => {
  // Term 1 in 256 events, term 2 in 255, term 3 in 300, term 4 in 299 (and in event 0, which is dropped below).
  const events: Added[] = [];
  for (let slot = 0; slot < 300; slot++) events.push({ slot, terms: [3, ...(slot < 256 ? [1] : []), ...(slot < 255 ? [2] : []), ...(slot < 299 ? [4] : [])] });
  for (const capacity of [300, 16_384, 16_448, 19_200, 19_264]) {
    const packed = packInSteps(64, events, undefined, 5, capacity, () => 100);
    assertPacked(packed, modelPacked(events, undefined, 5, capacity), `capacity ${capacity}`);
  }
  assert.deepEqual([...packInSteps(undefined, events, undefined, 5, 19_200, () => Infinity).bitmaps.keys()], [3]);
  const relabel = new Uint32Array(300).map((_, slot) => (slot === 0 ? DROPPED : slot - 1));
  const packed = packInSteps(undefined, events, relabel, 5, 300, () => 7);
  assertPacked(packed, modelPacked(events, relabel, 5, 300), 'event 0 dropped');
  assert.deepEqual([...packed.bitmaps.keys()], [3, 4], 'term 1 falls to 255 slots: a run');
});

test('BulkPostings grows its per-term arrays to any term id: the length reached, far past twice it, and 4-byte varints', () => {
  const events: Added[] = [1024, 2048, 4096, 20_000, 2 ** 21 + 5, 9].map((term, slot) => ({ slot, terms: [term, 7] }));
  const packed = packInSteps(16, events, undefined, 2 ** 21 + 6, 6, () => 2);
  const table = new PostingTable();
  table.install(packed);
  for (const [slot, { terms: [term] }] of events.entries()) assert.equal(table.get(term!), slot, `term ${term}`);
  assert.deepEqual([...(table.get(7) as Uint32Array)], [0, 1, 2, 3, 4, 5]);
});

test('BulkPostings keeps events with no terms, and an empty load packs to empty runs', () => {
  const events: Added[] = [{ slot: 0, terms: [] }, { slot: 1, terms: [2, 2] }, { slot: 3, terms: [] }, { slot: 4, terms: [0] }];
  const packed = packInSteps(8, events, undefined, 4, 5, () => 1);
  assertPacked(packed, modelPacked(events, undefined, 4, 5), 'empty events');
  assertPacked(new BulkPostings().pack(3, 0), modelPacked([], undefined, 3, 0), 'nothing added');
});

test('PostingTable: a packed run reads as a bare slot or a view, and a write moves the term out of the run', () => {
  const bulk = new BulkPostings();
  bulk.add(2, [0, 1]);
  bulk.add(5, [1]);
  const table = new PostingTable();
  table.install(bulk.pack(3, 10));
  assert.equal(table.get(0), 2, 'a run of one is a bare slot');
  assert.deepEqual([...(table.get(1) as Uint32Array)], [2, 5]);
  assert.equal(table.get(2), undefined, 'a term no event holds');
  const added = postingAdd(table.get(1), 3, 10);
  assert.deepEqual(added, [2, 3, 5], 'postingAdd turns a run into an array');
  table.set(1, added);
  assert.deepEqual(table.get(1), [2, 3, 5]);
  table.set(0, undefined);
  assert.equal(table.get(0), undefined, 'a term emptied by writes no longer reads its run');
  assert.throws(() => table.install({ offsets: new Uint32Array(1), slots: new Uint32Array(0), bitmaps: new Map() }), /before any write/);
  const slots: number[] = [];
  postingPushInto(table.get(1)!, slots);
  assert.deepEqual(slots, [2, 3, 5]);
});
