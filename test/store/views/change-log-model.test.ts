// ChangeLog against a plain model (each id's latest change) over seeded random writes, deletions, compactions and pages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored } from '../../../src/store/views/served-event.js';
import type { StoredEvent } from '../../../src/events/event.js';
import { ChangeLog, type ChangePage } from '../../../src/store/views/change-log.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord } from '../helpers.js';

const SEED = Number(process.env['CHANGE_LOG_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

/** What a page should hold: each id's latest change after `since`, live or a kept tombstone, in seq order, at most `limit`. */
function expectedPage(live: ReadonlyMap<string, StoredEvent>, tombstones: ReadonlyMap<string, number>, since: number, limit: number, liveThrough: number): string[] {
  const all = [...[...live.values()].map((event) => ({ seq: event.seq, text: `${event.seq} ${event.id}` })), ...[...tombstones].filter(([, seq]) => seq > liveThrough).map(([id, seq]) => ({ seq, text: `${seq} ${id} deleted` }))];
  return all
    .filter((change) => change.seq > since)
    .sort((a, b) => a.seq - b.seq)
    .map((change) => change.text)
    .slice(0, limit + 1);
}

const shown = (page: ChangePage): string[] => page.changes.map((change) => `${change.seq} ${change.id}${change.event === null ? ' deleted' : ''}`);

function checkPages(log: ChangeLog, live: ReadonlyMap<string, StoredEvent>, tombstones: ReadonlyMap<string, number>, lastSeq: number, below: (n: number) => number, what: string): void {
  const since = below(3) === 0 ? 0 : below(lastSeq + 2);
  const limit = 1 + below(below(2) === 0 ? 5 : 2000);
  const liveThrough = below(2) === 0 ? undefined : below(lastSeq + 2);
  const page = liveThrough === undefined ? log.after(since, limit) : log.after(since, limit, liveThrough);
  const expected = expectedPage(live, tombstones, since, limit, liveThrough ?? (since === 0 ? Infinity : 0));
  const where = `${what}: after(${since}, ${limit}, ${liveThrough})`;
  assert.deepEqual(shown(page), expected.slice(0, limit), where);
  assert.equal(page.more, expected.length > limit, `${where}: more`);
  // `through`: a reader going on from there misses nothing the page did not send, and reads nothing it sent again.
  assert.ok(page.through >= (page.changes.at(-1)?.seq ?? since) && page.through <= Math.max(since, lastSeq), `${where}: through ${page.through}`);
  const next = expected[limit];
  if (next !== undefined) assert.ok(Number(next.split(' ')[0]) > page.through, `${where}: through ${page.through} stops before ${next}`);
  for (const change of page.changes) if (change.event !== null) assert.equal(change.event, live.get(change.id), `${where}: the event itself`);
}

test(`ChangeLog answers every page as the latest change of each event would, across rebuilds and compactions (CHANGE_LOG_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const live = new Map<string, StoredEvent>();
  const tombstones = new Map<string, number>();
  const log = new ChangeLog((id) => live.get(id));
  let seq = 0;
  let horizon = 0;
  let heard = 0;
  log.subscribe(() => heard++);
  for (let batch = 1; batch <= 400; batch++) {
    // A batch of writes to few ids: most updates supersede, so the index rebuilds now and then.
    for (let k = below(12); k >= 0; k--) {
      const n = below(below(4) === 0 ? 400 : 30);
      const id = eventId(n);
      seq++;
      const kind = below(10);
      if (kind < 6) {
        const stored = toStored(sampleRecord(n), seq);
        live.delete(id);
        live.set(id, stored);
        tombstones.delete(id);
        log.committed(seq, id, stored);
      } else if (kind < 8 && live.has(id)) {
        live.delete(id);
        tombstones.delete(id);
        tombstones.set(id, seq);
        log.committed(seq, id, null);
      } else {
        // A line that changes no event (a registration of another kind, a mark): the last seq moves, nothing else.
        log.committed(seq, id, undefined);
      }
    }
    log.batchCommitted(live.values(), live.size);
    assert.equal(heard, batch, 'every batch is heard once');
    if (below(25) === 0) {
      const through = below(seq + 1);
      for (const [id, at] of tombstones) {
        if (at > through) continue;
        tombstones.delete(id);
        horizon = Math.max(horizon, at);
      }
      assert.equal(log.dropDeletionsThrough(through), horizon, `seed ${SEED}: horizon after dropping through ${through}`);
    }
    const what = `seed ${SEED}, batch ${batch}`;
    assert.equal(log.lastSeq, seq, `${what}: lastSeq`);
    assert.equal(log.horizon, horizon, `${what}: horizon`);
    assert.deepEqual([...log.tombstones], [...tombstones], `${what}: tombstones, in seq order`);
    checkPages(log, live, tombstones, seq, below, what);
  }
});

test(`a ChangeLog built from what replay found answers as one that saw every write, even from events out of seq order (CHANGE_LOG_SEED=${SEED})`, () => {
  const random = mulberry32(SEED + 1);
  const below = (n: number): number => Math.floor(random() * n);
  for (let round = 0; round < 40; round++) {
    const live = new Map<string, StoredEvent>();
    const tombstones = new Map<string, number>();
    let seq = 0;
    for (let n = 0; n < 60; n++) {
      seq += 1 + below(3);
      if (below(3) === 0) tombstones.set(eventId(n), seq);
      else live.set(eventId(n), toStored(sampleRecord(n), seq));
    }
    const horizon = below(5);
    // Replay hands live events in seq order; every few rounds, shuffled (the index then sorts rather than answer out of order).
    const events = [...live.values()];
    if (round % 3 === 0) events.sort(() => random() - 0.5);
    const log = new ChangeLog((id) => live.get(id), { events, tombstones, lastSeq: seq, horizon });
    const what = `seed ${SEED}, round ${round}`;
    assert.equal(log.lastSeq, seq, what);
    assert.equal(log.horizon, horizon, what);
    for (let k = 0; k < 5; k++) checkPages(log, live, tombstones, seq, below, what);
  }
  const empty = new ChangeLog(() => undefined);
  assert.deepEqual([empty.lastSeq, empty.horizon, empty.after(0, 10)], [0, 0, { changes: [], more: false, through: 0 }]);
});

test('ChangeLog.subscribe() returns an unsubscribe that stops only that listener; a listener may unsubscribe itself while being called', () => {
  const log = new ChangeLog(() => undefined);
  const heard: string[] = [];
  const stopA = log.subscribe(() => {
    heard.push('a');
    stopA();
  });
  log.subscribe(() => heard.push('b'));
  log.batchCommitted([], 0);
  log.batchCommitted([], 0);
  assert.deepEqual(heard, ['a', 'b', 'b']);
});

test(`ChangeLog.batchCommitted() rebuilds its index exactly when it holds more than 1,024 entries and twice the live events and tombstones (CHANGE_LOG_SEED=${SEED})`, () => {
  const random = mulberry32(SEED + 2);
  const below = (n: number): number => Math.floor(random() * n);
  const live = new Map<string, StoredEvent>();
  const tombstones = new Map<string, number>();
  const log = new ChangeLog((id) => live.get(id));
  let rebuilds = 0;
  for (let seq = 1; seq <= 6000; seq++) {
    // Mostly one write a batch to a few ids, so the index passes 1,024 one entry at a time; now and then a burst of new ids.
    const n = seq % 1500 < 300 ? seq : below(6);
    const id = eventId(n);
    if (below(5) === 0 && live.has(id)) {
      live.delete(id);
      tombstones.delete(id);
      tombstones.set(id, seq);
      log.committed(seq, id, null);
    } else {
      live.delete(id);
      tombstones.delete(id);
      live.set(id, toStored(sampleRecord(n), seq));
      log.committed(seq, id, live.get(id)!);
    }
    const held = log.indexLength;
    const needed = live.size + tombstones.size;
    log.batchCommitted(live.values(), live.size);
    const rebuilt = held > 1024 && held > 2 * needed;
    if (rebuilt) rebuilds++;
    assert.equal(log.indexLength, rebuilt ? needed : held, `seed ${SEED}, seq ${seq}: ${held} entries for ${live.size} live and ${tombstones.size} tombstones`);
  }
  assert.ok(rebuilds >= 3, `${rebuilds} rebuilds`);
});

test('ChangeLog.dropDeletionsThrough() never moves the horizon back, whatever order replay handed the tombstones in', () => {
  const log = new ChangeLog(() => undefined, { tombstones: new Map([[eventId(2), 8], [eventId(1), 5], [eventId(3), 12]]), lastSeq: 12, horizon: 3 });
  assert.equal(log.dropDeletionsThrough(9), 8);
  assert.deepEqual([...log.tombstones], [[eventId(3), 12]]);
  const later = new ChangeLog(() => undefined, { tombstones: new Map([[eventId(1), 5]]), lastSeq: 12, horizon: 10 });
  assert.equal(later.dropDeletionsThrough(6), 10, 'a horizon from the log is not lowered by an older deletion dropped');
});
