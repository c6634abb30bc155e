// PostingTable against a Map of term → slots over seeded random steps (POSTING_TABLE_SEED=n replays one): packed runs
// as the bulk build leaves them, then writes that replace a term's posting or empty it; every term read after each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type PackedPostings, PostingTable } from '../../src/search/search-posting-table.js';
import { type Posting, postingPushInto, SlotBitmap } from '../../src/search/search-postings.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['POSTING_TABLE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

function slotsOf(posting: Posting | undefined): number[] | undefined {
  if (posting === undefined) return undefined;
  const out: number[] = [];
  postingPushInto(posting, out);
  return out;
}

const postingSizeOf = (posting: Posting): number => slotsOf(posting)!.length;

/** Packed postings of `runs` (term → sorted slots; a term listed in `asBitmap` gets a bitmap and an empty run). */
function pack(runs: readonly (readonly number[])[], asBitmap: ReadonlySet<number>): PackedPostings {
  const offsets = new Uint32Array(runs.length + 1);
  const slots: number[] = [];
  const bitmaps = new Map<number, SlotBitmap>();
  runs.forEach((run, term) => {
    if (asBitmap.has(term)) {
      const bitmap = new SlotBitmap(1024);
      for (const slot of run) bitmap.add(slot);
      bitmaps.set(term, bitmap);
    } else slots.push(...run);
    offsets[term + 1] = slots.length;
  });
  return { offsets, slots: Uint32Array.from(slots), bitmaps };
}

test(`PostingTable reads packed runs until a term is written, then what was written (POSTING_TABLE_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  for (let round = 0; round < 20; round++) {
    const terms = below(60);
    const model = new Map<number, number[]>();
    const asBitmap = new Set<number>();
    const runs = Array.from({ length: terms }, (_, term) => {
      // Empty runs, runs of one slot, of a few; some terms as bitmaps (non-empty).
      const size = [0, 1, 1, 2, 3, 8][below(6)]!;
      const run = [...new Set(Array.from({ length: size }, () => below(1024)))].sort((a, b) => a - b);
      if (run.length > 0) model.set(term, run);
      if (run.length > 1 && random() < 0.2) asBitmap.add(term);
      return run;
    });
    const table = new PostingTable();
    table.install(pack(runs, asBitmap));
    const check = (what: string): void => {
      // Terms past the packed ones too: new words met after the start.
      for (let term = 0; term < terms + 5; term++) {
        const posting = table.get(term);
        assert.deepEqual(slotsOf(posting), model.get(term), `${what}: term ${term}`);
        if (posting !== undefined && postingSizeOf(posting) === 1) assert.equal(typeof posting, 'number', `${what}: a single slot is a bare number`);
      }
    };
    check(`seed ${SEED}, round ${round}, packed`);
    for (let step = 0; step < 40; step++) {
      const term = below(terms + 5);
      if (random() < 0.3) {
        table.set(term, undefined);
        model.delete(term);
      } else {
        const run = [...new Set(Array.from({ length: 1 + below(4) }, () => below(1024)))].sort((a, b) => a - b);
        table.set(term, run.length === 1 ? run[0]! : run);
        model.set(term, run);
      }
      check(`seed ${SEED}, round ${round}, step ${step}`);
    }
  }
});

test('PostingTable: a packed run of several slots is read in place (a view of the packed array), a bitmap as it was packed', () => {
  const bitmap = new SlotBitmap(64);
  bitmap.add(3);
  const packed: PackedPostings = { offsets: Uint32Array.of(0, 2, 2, 3), slots: Uint32Array.of(4, 9, 7), bitmaps: new Map([[1, bitmap]]) };
  const table = new PostingTable();
  table.install(packed);
  const run = table.get(0);
  assert.ok(run instanceof Uint32Array);
  assert.equal(run.buffer, packed.slots.buffer, 'no copy');
  assert.deepEqual([...run], [4, 9]);
  assert.equal(table.get(1), bitmap);
  assert.equal(table.get(2), 7);
  assert.equal(table.get(3), undefined);
  assert.equal(table.get(1000), undefined);
});

test('PostingTable: written as none, a term reads as none, its packed run no longer counts', () => {
  const table = new PostingTable();
  table.install({ offsets: Uint32Array.of(0, 2), slots: Uint32Array.of(1, 2), bitmaps: new Map() });
  table.set(0, undefined);
  assert.equal(table.get(0), undefined);
  table.set(0, 5);
  assert.equal(table.get(0), 5);
});

test('PostingTable: before any install, nothing is packed; an install after a write is refused', () => {
  const table = new PostingTable();
  assert.equal(table.get(0), undefined);
  table.install({ offsets: Uint32Array.of(0, 1), slots: Uint32Array.of(8), bitmaps: new Map() });
  assert.equal(table.get(0), 8, 'installing before any write is fine');
  table.set(1, [1, 2]);
  assert.deepEqual(table.get(1), [1, 2]);
  assert.throws(() => table.install({ offsets: Uint32Array.of(0), slots: new Uint32Array(0), bitmaps: new Map() }), /packed postings are installed before any write/);
  assert.equal(table.get(0), 8, 'the refused install changed nothing');
});
