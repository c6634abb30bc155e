// sortEvents against a plain model (start, then id by string comparison) over seeded random events: start times at
// every 16-bit digit boundary, ids that tie on their first characters, the edges of base62; and that ordinary ids take
// the radix path while odd ones fall back to the comparator (the reason the module exists is speed).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredEvent } from '../../../src/events/event.js';
import { compareEvents, sortEvents } from '../../../src/store/views/sort-events.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['SORT_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const EDGES = '09AZaz';
const STARTS = [0, 1, 0xffff, 0x10000, 0x10001, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 0x10000, 2 ** 47, 2 ** 48 - 1, 1_764_000_000_000];

function stored(id: string, startMs: number): StoredEvent {
  return { id, startMs, endMs: startMs + 1, category: 'academic', organizerEmail: 'a@b.co', createdAt: '2026-01-01T00:00:00.000Z', seq: 1, modifiedMs: 0, json: '{}' };
}

function model(events: readonly StoredEvent[]): string[] {
  const keys = events.map((e) => [e.startMs, e.id] as const);
  keys.sort((a, b) => (a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return keys.map(([start, id]) => `${start} ${id}`);
}

/** `events` as an array that records whether sortEvents fell back to `slice().sort(compareEvents)`. */
function watched(events: StoredEvent[]): { input: StoredEvent[]; fellBack: () => boolean } {
  let fell = false;
  const input = Object.assign([...events], {
    slice(this: StoredEvent[], ...args: [start?: number, end?: number]) {
      fell = true;
      return Array.prototype.slice.apply(this, args);
    },
  });
  return { input, fellBack: () => fell };
}

function randomId(random: () => number, prefixes: string[]): string {
  const pick = (s: string): string => s[Math.floor(random() * s.length)]!;
  const head = random() < 0.7 ? prefixes[Math.floor(random() * prefixes.length)]! : Array.from({ length: 5 }, () => pick(random() < 0.5 ? EDGES : BASE62)).join('');
  const tail = Array.from({ length: Math.floor(random() * 4) }, () => pick(BASE62)).join('');
  return `evt_${head}${tail}`;
}

test(`sortEvents() orders like the model and takes the radix path for evt_ + base62 ids (SORT_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 60; round++) {
    const prefixes = Array.from({ length: 1 + Math.floor(random() * 4) }, () => Array.from({ length: 5 }, () => EDGES[Math.floor(random() * EDGES.length)]).join(''));
    const count = Math.floor(random() * 120);
    const events = Array.from({ length: count }, () => {
      const base = STARTS[Math.floor(random() * STARTS.length)]!;
      const start = random() < 0.5 ? base : Math.floor(random() * 2 ** 48);
      return stored(randomId(random, prefixes), start);
    });
    const { input, fellBack } = watched(events);
    const sorted = sortEvents(input);
    assert.deepEqual(sorted.map((e) => `${e.startMs} ${e.id}`), model(events), `round ${round} (SORT_SEED=${SEED})`);
    assert.equal(fellBack(), false, `ordinary ids fall back (round ${round}, SORT_SEED=${SEED})`);
    for (let i = 1; i < sorted.length; i++) assert.ok(compareEvents(sorted[i - 1]!, sorted[i]!) <= 0);
  }
});

test(`sortEvents() falls back, still in order, for an id or start the radix keys cannot hold (SORT_SEED=${SEED})`, () => {
  const random = mulberry32(SEED ^ 0x5eed);
  const odd: Array<[string, number]> = [
    ['evt_abcd', 5], // shorter than evt_ + 5
    ['evt/abcde', 5],
    ['evt_abc/d', 5], ['evt_abc:d', 5], ['evt_abc@d', 5], ['evt_abc[d', 5], ['evt_abc`d', 5], ['evt_abc{d', 5],
    ['evt_abcde', -1], ['evt_abcde', 1.5], ['evt_abcde', 2 ** 48], ['evt_abcde', Number.NaN],
  ];
  for (const [oddId, oddStart] of odd) {
    const events = Array.from({ length: 30 }, () => stored(randomId(random, ['00000', 'zzzzz']), STARTS[Math.floor(random() * STARTS.length)]!));
    events.splice(Math.floor(random() * events.length), 0, stored(oddId, oddStart));
    const { input, fellBack } = watched(events);
    const sorted = sortEvents(input);
    assert.equal(fellBack(), true, `${oddId} at ${oddStart} (SORT_SEED=${SEED})`);
    if (!Number.isNaN(oddStart)) assert.deepEqual(sorted.map((e) => `${e.startMs} ${e.id}`), model(events), `${oddId} at ${oddStart} (SORT_SEED=${SEED})`);
  }
});

test('sortEvents() takes the radix path at the edges it accepts: start 0 and 2^48 - 1, id evt_00000 and evt_zzzzz exactly', () => {
  const events = [stored('evt_zzzzz', 2 ** 48 - 1), stored('evt_00000', 0), stored('evt_zzzzz', 0), stored('evt_00000', 2 ** 48 - 1), stored('evt_09AZa', 0x10000)];
  const { input, fellBack } = watched(events);
  assert.deepEqual(sortEvents(input).map((e) => `${e.startMs} ${e.id}`), model(events));
  assert.equal(fellBack(), false);
});

test(`compareEvents() answers like the model's comparison, 0 only for the same start and id (SORT_SEED=${SEED})`, () => {
  const random = mulberry32(SEED ^ 0xc0de);
  const sign = (a: StoredEvent, b: StoredEvent): number => (a.startMs !== b.startMs ? Math.sign(a.startMs - b.startMs) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  for (let round = 0; round < 500; round++) {
    const a = stored(randomId(random, ['00000', 'a0000']), STARTS[Math.floor(random() * 3)]!);
    const b = random() < 0.2 ? stored(a.id, a.startMs) : stored(randomId(random, ['00000', 'a0000']), STARTS[Math.floor(random() * 3)]!);
    assert.equal(Math.sign(compareEvents(a, b)), sign(a, b), `${a.startMs} ${a.id} vs ${b.startMs} ${b.id} (SORT_SEED=${SEED})`);
  }
});

/** An event whose start and id count their reads: the radix path reads each once, and compares only events whose keys tie. */
function counted(id: string, startMs: number, reads: Map<string, number>): StoredEvent {
  const event = stored(id, startMs);
  const key = `${startMs} ${id}`;
  return Object.defineProperties(event, {
    id: { get: () => (reads.set(key, (reads.get(key) ?? 0) + 1), id) },
    startMs: { get: () => (reads.set(key, (reads.get(key) ?? 0) + 1), startMs) },
  });
}

test(`sortEvents() compares only events whose start and first 5 id characters tie (SORT_SEED=${SEED})`, () => {
  const random = mulberry32(SEED ^ 0x71e5);
  for (let round = 0; round < 40; round++) {
    const reads = new Map<string, number>();
    const specs = new Map<string, [string, number]>();
    const count = 2 + Math.floor(random() * 60);
    while (specs.size < count) {
      const start = random() < 0.5 ? STARTS[Math.floor(random() * 4)]! : Math.floor(random() * 2 ** 48);
      const id = randomId(random, ['00000', '0000z']);
      specs.set(`${start} ${id}`, [id, start]);
    }
    const events = [...specs.values()].map(([id, start]) => counted(id, start, reads));
    const keyOf = ([id, start]: [string, number]): string => `${start} ${id.slice(0, 9)}`;
    const tally = new Map<string, number>();
    for (const spec of specs.values()) tally.set(keyOf(spec), (tally.get(keyOf(spec)) ?? 0) + 1);
    const sorted = sortEvents(events);
    const after = new Map(reads);
    for (const [key, spec] of specs) {
      // The radix path reads each event's start and id once; only events whose keys tie are compared (read again).
      if (tally.get(keyOf(spec))! === 1) assert.equal(after.get(key), 2, `${key} has a key of its own but was read ${after.get(key)} times (round ${round}, SORT_SEED=${SEED})`);
    }
    assert.deepEqual(sorted.map((e) => `${e.startMs} ${e.id}`), model([...specs.values()].map(([id, start]) => stored(id, start))), `round ${round} (SORT_SEED=${SEED})`);
  }
});
