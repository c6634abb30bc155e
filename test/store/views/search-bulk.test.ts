// BulkPostings and PostingTable against a model: packed runs and bitmaps hold exactly the slots added and kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postingAdd, postingPushInto } from '../../../src/store/views/search-postings.js';
import { BulkPostings } from '../../../src/store/views/search-bulk.js';
import { PostingTable } from '../../../src/store/views/search-posting-table.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['SEARCH_BULK_SEED'] ?? Date.now() % 1_000_000);

test(`BulkPostings.packSome() in steps gives each term the sorted slots of the events that hold it (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const terms = 300;
  const bulk = new BulkPostings();
  const model = new Map<number, Set<number>>();
  let slot = 0;
  for (let event = 0; event < 20_000; event++) {
    slot += 1 + Math.floor(random() * 3);
    // Term 0 is in every event (a bitmap), low terms often, high ones rarely; repeats within an event.
    const own = [0];
    for (let n = Math.floor(random() * 8); n > 0; n--) own.push(Math.floor(terms * random() ** 3));
    own.push(own[own.length - 1]!);
    bulk.add(slot, own);
    for (const term of own) model.set(term, (model.get(term) ?? new Set()).add(slot));
  }
  let packed = bulk.packSome(terms, slot + 1, 1 + Math.floor(random() * 5000));
  let steps = 1;
  for (; packed === undefined; steps++) packed = bulk.packSome(terms, slot + 1, 1 + Math.floor(random() * 5000));
  assert.ok(steps >= 4, `packed in ${steps} steps: the filling spread over several`);
  const table = new PostingTable();
  table.install(packed);
  assert.ok(packed.bitmaps.has(0), 'the term in every event is a bitmap');
  for (let term = 0; term < terms; term++) {
    const posting = table.get(term);
    const slots: number[] = [];
    if (posting !== undefined) postingPushInto(posting, slots);
    assert.deepEqual(slots, [...(model.get(term) ?? [])], `seed ${SEED}: term ${term}`);
  }
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
});

test('BulkPostings reads its stream across a chunk: large term ids (4-byte varints) over 4 MiB of it', () => {
  const base = 2 ** 21;
  const bulk = new BulkPostings();
  const model = new Map<number, number[]>();
  for (let slot = 0; slot < 400_000; slot++) {
    const own = [base + (slot % 97), base + 97 + (slot % 3), base + 100 + Math.floor(slot / 100_000)];
    bulk.add(slot, own);
    for (const term of own) model.set(term, [...(model.get(term) ?? []), slot].slice(-3));
  }
  const table = new PostingTable();
  table.install(bulk.pack(base + 104, 400_000));
  for (const [term, lastSlots] of model) {
    const slots: number[] = [];
    postingPushInto(table.get(term)!, slots);
    assert.deepEqual(slots.slice(-3), lastSlots, `term ${term}`);
  }
  let total = 0;
  for (const term of model.keys()) {
    const slots: number[] = [];
    postingPushInto(table.get(term)!, slots);
    total += slots.length;
  }
  assert.equal(total, 1_200_000, 'every slot of every term, none lost at the chunk edge');
});
