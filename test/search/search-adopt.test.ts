// Matching a search index built from the log to the replayed events, against brute force: each replayed event's
// slot is where its id sits in the build (found by a search of the whole list), and the renamed postings are the
// built ones with each slot looked up in that table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredEvent } from '../../src/events/event.js';
import type { BuiltSearch } from '../../src/search/search-built.js';
import { builtSlots, remapped } from '../../src/search/search-adopt.js';
import type { PackedPostings } from '../../src/search/search-posting-table.js';
import { SlotBitmap } from '../../src/search/search-postings.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['SEARCH_ADOPT_SEED'] ?? Date.now() % 1_000_000);
type Random = () => number;

function shuffled<T>(random: Random, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** The events part of a build: ids as Latin-1 bytes, inside a larger buffer (offset 3) so byteOffset counts. */
function builtEvents(list: readonly { id: string; seq: number }[]): BuiltSearch {
  const bytes = Buffer.from(`xyz${list.map((event) => event.id).join('')}`, 'latin1');
  const idEnds = new Uint32Array(list.length);
  let end = 0;
  list.forEach((event, i) => (idEnds[i] = end += event.id.length));
  const ids = new Uint8Array(bytes.buffer, bytes.byteOffset + 3, end);
  return { ids, idEnds, putSeqs: Float64Array.from(list, (event) => event.seq) } as unknown as BuiltSearch;
}

/** What builtSlots should give, by a search of the whole build for each id, in the replay's order. */
function bruteSlots(events: readonly StoredEvent[], built: readonly { id: string; seq: number }[]): number[] | string {
  if (built.length !== events.length) return `the build holds ${built.length} events, the replay ${events.length}`;
  const slots: number[] = [];
  for (const stored of events) {
    const slot = built.findIndex((event) => event.id === stored.id);
    if (slot < 0) return `event ${stored.id} is not in the build`;
    if (built[slot]!.seq > stored.seq) return `event ${stored.id} was built from seq ${built[slot]!.seq}, newer than its ${stored.seq}`;
    slots.push(slot);
  }
  return slots;
}

test(`builtSlots() finds each replayed event's slot in the build, or says why not, as a search by id does (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 300; round++) {
    const count = Math.floor(random() * 12);
    // Ids of different lengths sharing prefixes ("e1", "e12", "e123"), so a comparison must cover length and every byte.
    const ids = shuffled(random, Array.from({ length: 40 }, (_, i) => `e${i}${random() < 0.3 ? 'é' : ''}`)).slice(0, count);
    const built = ids.map((id, i) => ({ id, seq: 10 * i + Math.floor(random() * 5) }));
    // The replay: the same events, a few moved later (a registration after their put), seqs at least the put's.
    let replay = built.map((event) => ({ id: event.id, seq: event.seq + (random() < 0.3 ? 1 + Math.floor(random() * 100) : 0) }));
    replay.sort((a, b) => a.seq - b.seq);
    if (random() < 0.3) replay = shuffled(random, replay);
    const fault = random();
    if (count > 0 && fault < 0.15) replay[Math.floor(random() * count)]!.id = `x${Math.floor(random() * 3)}`;
    else if (count > 0 && fault < 0.3) replay[Math.floor(random() * count)]!.seq -= 1 + Math.floor(random() * 2);
    else if (fault < 0.4) replay.splice(Math.floor(random() * (count + 1)), random() < 0.5 ? 1 : 0, { id: 'extra', seq: 1000 });
    const events = replay as unknown as StoredEvent[];
    const got = builtSlots(events, builtEvents(built));
    const expected = bruteSlots(events, built);
    assert.deepEqual(typeof got === 'string' ? got : [...got], expected, `seed ${SEED}, round ${round}: ${JSON.stringify({ built, replay })}`);
  }
});

function randomPacked(random: Random, events: number): PackedPostings {
  const terms = 1 + Math.floor(random() * 8);
  const offsets = new Uint32Array(terms + 1);
  const slots: number[] = [];
  const bitmaps = new Map<number, SlotBitmap>();
  for (let term = 0; term < terms; term++) {
    const run = [...new Set(Array.from({ length: Math.floor(random() * (events + 1)) }, () => Math.floor(random() * events)))].sort((a, b) => a - b);
    if (random() < 0.25) {
      const bitmap = new SlotBitmap(events);
      for (const slot of run) bitmap.add(slot);
      bitmaps.set(term, bitmap);
    } else slots.push(...run);
    offsets[term + 1] = slots.length;
  }
  return { offsets, slots: Uint32Array.from(slots), bitmaps };
}

function runsOf(packed: PackedPostings): number[][] {
  const runs: number[][] = [];
  for (let term = 0; term + 1 < packed.offsets.length; term++) runs.push([...packed.slots.subarray(packed.offsets[term]!, packed.offsets[term + 1]!)]);
  return runs;
}

function bitmapsOf(packed: PackedPostings): [number, number[], number][] {
  return [...packed.bitmaps].map(([term, bitmap]) => {
    const slots: number[] = [];
    bitmap.forEach((slot) => slots.push(slot));
    return [term, slots, bitmap.count];
  });
}

test(`remapped() renames every built slot to the replay's, runs sorted, bitmaps rebuilt; the same order is kept as is (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 200; round++) {
    const events = 1 + Math.floor(random() * 70);
    const packed = randomPacked(random, events);
    const identity = random() < 0.2;
    const slotOf = identity ? Uint32Array.from({ length: events }, (_, i) => i) : Uint32Array.from(shuffled(random, Array.from({ length: events }, (_, i) => i)));
    // Only the last slots swapped: the walk must look past the first few.
    if (!identity && events >= 2 && random() < 0.3) slotOf.set(Uint32Array.from({ length: events }, (_, i) => (i < events - 2 ? i : 2 * events - 3 - i)));
    const mainSlot = new Map<number, number>();
    slotOf.forEach((built, main) => mainSlot.set(built, main));
    const expectedRuns = runsOf(packed).map((run) => run.map((slot) => mainSlot.get(slot)!).sort((a, b) => a - b));
    const expectedBitmaps = bitmapsOf(packed).map(([term, slots, count]) => [term, slots.map((slot) => mainSlot.get(slot)!).sort((a, b) => a - b), count]);
    const renamed = remapped(packed, slotOf, events);
    const where = `seed ${SEED}, round ${round}: ${slotOf}`;
    if ([...slotOf].every((slot, i) => slot === i)) assert.equal(renamed, packed, `${where}: the same order, the same postings`);
    assert.deepEqual(runsOf(renamed), expectedRuns, `${where}: runs`);
    assert.deepEqual(bitmapsOf(renamed), expectedBitmaps, `${where}: bitmaps`);
    for (const bitmap of renamed.bitmaps.values()) assert.ok(bitmap.words.length >= events >>> 5, `${where}: bitmaps sized for every event`);
  }
});
