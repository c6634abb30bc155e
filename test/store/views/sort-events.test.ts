// sortEvents: the radix bulk sort gives exactly the comparator's order, ties and odd ids included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredEvent } from '../../../src/events/event.js';
import { compareEvents, sortEvents } from '../../../src/store/views/sort-events.js';

function stored(id: string, startMs: number): StoredEvent {
  return { id, startMs, endMs: startMs + 1, category: 'academic', organizerEmail: 'a@b.co', createdAt: '2026-01-01T00:00:00.000Z', seq: 1, modifiedMs: 0, json: '{}' };
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

test('sortEvents() orders like sort(compareEvents): many tied start times, ids tied on their first characters', () => {
  let seed = 7;
  const random = (below: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return Math.floor((seed / 2 ** 32) * below);
  };
  const events: StoredEvent[] = [];
  for (let i = 0; i < 5000; i++) {
    // Few distinct prefixes and start times, so both kinds of tie happen often.
    let id = `evt_${ALPHABET[random(3)]}${ALPHABET[60 + random(2)]}0Zz`;
    for (let k = 0; k < 12; k++) id += ALPHABET[random(62)];
    const start = [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 47, Date.UTC(2026, 8, 1), 253402300799999][random(7)]! + random(3) * 65536;
    events.push(stored(id, start));
  }
  const input = [...events];
  assert.deepEqual(sortEvents(events).map((e) => `${e.startMs} ${e.id}`), [...events].sort(compareEvents).map((e) => `${e.startMs} ${e.id}`));
  assert.deepEqual(events, input, 'the input is left as it was');
});

test('sortEvents() falls back to the comparator for ids outside evt_ + base62', () => {
  const events = [stored('evt_zz_', 5), stored('evt_0000000000000000', 5), stored('x', 1), stored('evt_zz-', 5)];
  assert.deepEqual(sortEvents(events).map((e) => e.id), ['x', 'evt_0000000000000000', 'evt_zz-', 'evt_zz_']);
});

test('sortEvents() sorts nothing and one event', () => {
  assert.deepEqual(sortEvents([]), []);
  const one = stored('evt_0000000000000001', 3);
  assert.deepEqual(sortEvents([one]), [one]);
});
