// The search index's slot table and month postings against a plain model: a Map of id to slot and event, from
// which the slots of each category and month are counted afresh after every step of a seeded random walk.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type Category, type StoredEvent } from '../../src/events/event.js';
import { MonthPostings, monthOf, monthStart } from '../../src/search/search-months.js';
import { type Posting, postingPushInto } from '../../src/search/search-postings.js';
import { SlotTable } from '../../src/search/search-slots.js';
import { mulberry32 } from '../helpers/random.js';
import { STORE_EVENT_FORMS } from '../../src/store/views/store-event-forms.js';

const SEED = Number(process.env['SEARCH_SLOTS_SEED'] ?? Date.now() % 1_000_000);
type Random = () => number;

function slotsOf(posting: Posting | undefined): number[] {
  const slots: number[] = [];
  if (posting !== undefined) postingPushInto(posting, slots);
  return slots.sort((a, b) => a - b);
}

/** An event with only what the slot table reads: id, category and start (one of a few months, 1 ms either side of one's start). */
function fakeEvent(random: Random, id: string): StoredEvent {
  const month = 2026 * 12 + Math.floor(random() * 5);
  const startMs = monthStart(month) + [-1, 0, 1, 86_400_000][Math.floor(random() * 4)]!;
  return { id, category: CATEGORIES[Math.floor(random() * CATEGORIES.length)]!, startMs } as unknown as StoredEvent;
}

test(`monthStart() is the first millisecond of the UTC month monthOf() names, its inverse (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  assert.equal(monthStart(1970 * 12), 0);
  assert.equal(monthStart(2026 * 12 + 1), Date.UTC(2026, 1, 1));
  assert.equal(monthOf(Date.UTC(2026, 1, 1) - 1), 2026 * 12, 'the last millisecond of January');
  assert.equal(monthOf(-1), 1969 * 12 + 11, 'before 1970: December 1969');
  // The last day of a 400-year era (29 February of 1600, 2000, 2400) and the days either side.
  for (const year of [1600, 2000, 2400]) {
    for (const [month, day] of [[1, 28], [1, 29], [2, 1]] as const) {
      for (const ms of [Date.UTC(year, month, day), Date.UTC(year, month, day, 23, 59, 59, 999)]) assert.equal(monthOf(ms), year * 12 + month, new Date(ms).toISOString());
    }
  }
  for (let round = 0; round < 300; round++) {
    const month = Math.floor(random() * 12_000) + 1900 * 12;
    const start = monthStart(month);
    assert.equal(start, Date.UTC(Math.floor(month / 12), month % 12, 1), `seed ${SEED}: month ${month}`);
    assert.equal(monthOf(start), month, `seed ${SEED}: month ${month}`);
    assert.equal(monthOf(start - 1), month - 1, `seed ${SEED}: the millisecond before month ${month}`);
  }
});

test(`MonthPostings moves slots between months as a Map of Sets would (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const postings = new MonthPostings();
  const model = new Map<number, number | undefined>(); // slot -> start ms
  const capacity = 40;
  for (let step = 0; step < 400; step++) {
    const slot = Math.floor(random() * capacity);
    const to = random() < 0.2 ? undefined : monthStart(2026 * 12 + Math.floor(random() * 4)) + Math.floor(random() * 3) * 86_400_000;
    postings.move(slot, model.get(slot), to, capacity);
    model.set(slot, to);
    const expected = new Map<number, number[]>();
    for (const [s, ms] of [...model].sort((a, b) => a[0] - b[0])) if (ms !== undefined) expected.set(monthOf(ms), [...(expected.get(monthOf(ms)) ?? []), s]);
    assert.deepEqual(postings.months(), [...expected.keys()].sort((a, b) => a - b), `seed ${SEED}, step ${step}: months`);
    for (let month = 2026 * 12 - 1; month <= 2026 * 12 + 4; month++) {
      assert.deepEqual(slotsOf(postings.get(month)), expected.get(month) ?? [], `seed ${SEED}, step ${step}: month ${month}`);
      if (!expected.has(month)) assert.equal(postings.get(month), undefined, `seed ${SEED}, step ${step}: an emptied month is dropped`);
    }
  }
});

test(`SlotTable keeps slots, categories and months as a Map of id to event would (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 20; round++) {
    const table = new SlotTable(STORE_EVENT_FORMS);
    const reserved = Math.floor(random() * 6);
    table.reserve(reserved);
    const model = new Map<string, { slot: number; event: StoredEvent }>();
    const free = new Set<number>();
    let capacity = reserved;
    let next = 0;
    // A bulk load places its events in the reserved slots, some of which it leaves free.
    for (let slot = 0; slot < reserved; slot++) {
      if (random() < 0.3) {
        table.free(slot);
        free.add(slot);
        continue;
      }
      const event = fakeEvent(random, `e${next++}`);
      table.place(event, slot);
      model.set(event.id, { slot, event });
    }
    assert.equal(table.capacity, reserved, `seed ${SEED}, round ${round}: reserved slots are the capacity`);
    for (let step = 0; step < 60; step++) {
      const ids = [...model.keys()];
      const action = random();
      if (action < 0.45 || ids.length === 0) {
        const slot = table.newSlot();
        if (free.size > 0) assert.ok(free.has(slot), `seed ${SEED}, round ${round}, step ${step}: a free slot is reused (${slot})`);
        else assert.equal(slot, capacity, `seed ${SEED}, round ${round}, step ${step}: no free slot, one past the end`);
        free.delete(slot);
        capacity = Math.max(capacity, slot + 1);
        const event = fakeEvent(random, `e${next++}`);
        table.place(event, slot);
        model.set(event.id, { slot, event });
      } else if (action < 0.75) {
        const id = ids[Math.floor(random() * ids.length)]!;
        const { slot, event } = model.get(id)!;
        const changed = { ...fakeEvent(random, id), seq: step } as StoredEvent;
        if (random() < 0.3) (changed as { category: Category }).category = event.category;
        table.replace(slot, event, changed);
        model.set(id, { slot, event: changed });
      } else {
        const id = ids[Math.floor(random() * ids.length)]!;
        const { slot } = model.get(id)!;
        table.remove(slot);
        model.delete(id);
        free.add(slot);
      }
      const where = `seed ${SEED}, round ${round}, step ${step}`;
      assert.equal(table.capacity, capacity, `${where}: capacity`);
      for (let slot = 0; slot < capacity + 1; slot++) {
        const held = [...model.values()].find((entry) => entry.slot === slot);
        assert.equal(table.eventAt(slot), held?.event, `${where}: event in slot ${slot}`);
      }
      for (const [id, { slot, event }] of model) assert.equal(table.slotOf(event), slot, `${where}: slot of ${id}`);
      assert.equal(table.slotOf({ id: `e${next}` } as StoredEvent), undefined, `${where}: no slot for an unknown id`);
      for (const category of CATEGORIES) {
        const expected = [...model.values()].filter((entry) => entry.event.category === category).map((entry) => entry.slot).sort((a, b) => a - b);
        const bitmap: number[] = [];
        table.categoryBitmap(category).forEach((slot) => bitmap.push(slot));
        assert.deepEqual(bitmap, expected, `${where}: slots of ${category}`);
      }
      const months = new Map<number, number[]>();
      for (const { slot, event } of model.values()) months.set(monthOf(event.startMs), [...(months.get(monthOf(event.startMs)) ?? []), slot]);
      assert.deepEqual(table.months(), [...months.keys()].sort((a, b) => a - b), `${where}: months`);
      for (const [month, slots] of months) assert.deepEqual(slotsOf(table.monthPosting(month)), slots.sort((a, b) => a - b), `${where}: month ${month}`);
    }
  }
});

test('a new SlotTable has no slot: the first event takes slot 0', () => {
  const table = new SlotTable(STORE_EVENT_FORMS);
  assert.equal(table.capacity, 0);
  assert.equal(table.eventAt(0), undefined);
  assert.equal(table.newSlot(), 0);
  const event = fakeEvent(mulberry32(1), 'a');
  table.place(event, 0);
  assert.equal(table.capacity, 1);
  assert.equal(table.newSlot(), 1);
});
