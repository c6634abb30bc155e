// SlotTable with the store's own event objects (EventState), whose slot it keeps on the object: two tables fed the
// same objects by a seeded random walk (as tests and benches do), each against a plain model of id to slot and
// event, with literals mixed in (kept by id, as before). The first table keeps nothing by id for an EventState.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type StoredEvent } from '../../src/events/event.js';
import { monthStart } from '../../src/search/search-months.js';
import { SlotTable } from '../../src/search/search-slots.js';
import { ServedEvent } from '../../src/store/views/served-event.js';
import { mulberry32 } from '../helpers/random.js';
import { STORE_EVENT_FORMS } from '../../src/store/views/store-event-forms.js';

const SEED = Number(process.env['SEARCH_SLOTS_STATE_SEED'] ?? Date.now() % 1_000_000);
type Random = () => number;

/** A state of event `id`: mostly a ServedEvent, a literal at `literals` odds. */
function stateOf(random: Random, id: string, literals: number): StoredEvent {
  const startMs = monthStart(2026 * 12 + Math.floor(random() * 3)) + 3_600_000;
  const category = CATEGORIES[Math.floor(random() * CATEGORIES.length)]!;
  if (random() < literals) return { id, category, startMs } as unknown as StoredEvent;
  return new ServedEvent(id, startMs, startMs + 1, category, 'o@campus.example', '2026-01-01T00:00:00.000Z', 1, 0, '{}');
}

/** One table and what it should hold: the live state of each id, and its slot. */
interface Twin {
  table: SlotTable;
  live: Map<string, { slot: number; stored: StoredEvent }>;
}

function check(twin: Twin, retired: readonly StoredEvent[], where: string): void {
  const { table, live } = twin;
  for (const [id, { slot, stored }] of live) {
    assert.equal(table.slotOf(stored), slot, `${where}: slot of ${id}`);
    assert.equal(table.eventAt(slot), stored, `${where}: event in slot ${slot}`);
  }
  // A former state of a live id, or of a removed one, has no slot: the object, not the id, is looked up.
  for (const stored of retired) if (live.get(stored.id)?.stored !== stored) assert.equal(table.slotOf(stored), undefined, `${where}: retired ${stored.id}`);
}

test(`SlotTable keeps an EventState's slot on the object, and a second table sharing the objects keeps them by id (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 12; round++) {
    // Every fourth round, one table of EventStates alone: as a store's index, it keeps nothing by id.
    const alone = round % 4 === 0;
    const literals = alone ? 0 : 0.2;
    const twins: Twin[] = [
      { table: new SlotTable(STORE_EVENT_FORMS), live: new Map() },
      { table: new SlotTable(STORE_EVENT_FORMS), live: new Map() },
    ];
    const retired: StoredEvent[] = [];
    let next = 0;
    for (let step = 0; step < 150; step++) {
      const where = `seed ${SEED}, round ${round}, step ${step}`;
      // Each step acts on one table (the second lags behind or runs ahead), on ids both may hold.
      const twin = twins[alone || random() < 0.6 ? 0 : 1]!;
      const { table, live } = twin;
      const ids = [...live.keys()];
      const roll = random();
      if (roll < 0.35 || ids.length === 0) {
        // A new id, or one the other table holds (its very object, at times: an object in two tables).
        const other = twins[twins[0] === twin ? 1 : 0]!;
        const shared = [...other.live.values()].filter(({ stored }) => !live.has(stored.id));
        const pick = shared.length > 0 && random() < 0.5 ? shared[Math.floor(random() * shared.length)]!.stored : stateOf(random, `e${next++}`, literals);
        const slot = table.newSlot();
        table.place(pick, slot);
        live.set(pick.id, { slot, stored: pick });
      } else if (roll < 0.75) {
        const id = ids[Math.floor(random() * ids.length)]!;
        const { slot, stored: previous } = live.get(id)!;
        // A new state, or a former one put back, or the same object put again.
        const former = retired.filter((stored) => stored.id === id && stored !== previous);
        const pick = random();
        const stored = pick < 0.15 ? previous : pick < 0.4 && former.length > 0 ? former[Math.floor(random() * former.length)]! : stateOf(random, id, literals);
        table.replace(slot, previous, stored);
        if (stored !== previous) retired.push(previous);
        live.set(id, { slot, stored });
      } else {
        const id = ids[Math.floor(random() * ids.length)]!;
        const { slot, stored } = live.get(id)!;
        table.remove(slot);
        live.delete(id);
        retired.push(stored);
      }
      for (const each of twins) check(each, retired, where);
      if (alone) assert.equal(twins[0]!.table.spared, 0, `${where}: nothing kept by id`);
    }
  }
});

test('an EventState placed, replaced and removed: its slot is on it, then -1; a literal is kept by id', () => {
  const random = mulberry32(SEED);
  const table = new SlotTable(STORE_EVENT_FORMS);
  const first = stateOf(random, 'a', 0) as ServedEvent;
  const second = stateOf(random, 'a', 0) as ServedEvent;
  table.place(first, table.newSlot());
  table.place(stateOf(random, 'b', 0), table.newSlot());
  assert.equal(first.searchSlot, 0);
  assert.equal(table.spared, 0);
  table.replace(0, first, second);
  assert.deepEqual([first.searchSlot, second.searchSlot, table.slotOf(first), table.slotOf(second)], [-1, 0, undefined, 0]);
  table.remove(0);
  assert.deepEqual([second.searchSlot, table.slotOf(second)], [-1, undefined]);
  assert.equal(table.newSlot(), 0, 'the freed slot is reused');
  const literal = stateOf(random, 'c', 1);
  table.place(literal, 0);
  assert.deepEqual([table.slotOf(literal), table.spared], [0, 1]);
  table.remove(0);
  assert.deepEqual([table.slotOf(literal), table.spared], [undefined, 0]);
  // A second table given an object the first holds keeps it by id, and leaves the first's slot on it alone.
  const shared = stateOf(random, 'd', 0) as ServedEvent;
  table.place(shared, 0);
  const other = new SlotTable(STORE_EVENT_FORMS);
  other.place(stateOf(random, 'x', 0), other.newSlot());
  other.place(shared, other.newSlot());
  assert.deepEqual([shared.searchSlot, other.slotOf(shared), other.spared, table.slotOf(shared)], [0, 1, 1, 0]);
  other.remove(1);
  assert.deepEqual([shared.searchSlot, other.slotOf(shared), other.spared, table.slotOf(shared)], [0, undefined, 0, 0]);
});
